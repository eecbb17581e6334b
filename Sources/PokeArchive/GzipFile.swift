import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a gzip file to disk: chunks in, compressed bytes out.
///
/// Output is deterministic: gzip header mtime 0, no file name, OS byte 255, so the same
/// input gives byte-identical files (bundles must be reproducible). The file is written in
/// place; write to a temporary name and rename it if readers must never see a partial file.
///
/// Not `Sendable`: one writer belongs to one task at a time.
public final class GzipFileWriter {
    /// Compressed bytes are collected up to this size before one `write(2)` call.
    static let flushThreshold = 1 << 20

    public let path: String
    /// Bytes handed to `write` so far (the size of the decompressed file).
    public private(set) var uncompressedByteCount = 0
    /// Compressed bytes written to the file so far; the file size once `close()` returned.
    public private(set) var compressedByteCount = 0

    private let deflater: Deflater
    private var file: CompressedFileDescriptor?
    private var pendingOutput: [UInt8] = []

    /// Creates (or truncates) the file at `path` with mode 0644.
    /// - Parameter level: deflate level, 0 (store) to 9 (smallest).
    /// - Throws: `CompressionError.fileAccess` if the file cannot be created,
    ///   `CompressionError.zlib` for an invalid level.
    public init(path: String, level: Int32 = 6) throws {
        self.path = path
        deflater = try Deflater(format: .gzip, level: level)
        file = try CompressedFileDescriptor(creating: path)
        pendingOutput.reserveCapacity(Self.flushThreshold + ZlibScratchBuffer.defaultSize)
    }

    /// Compresses and appends the bytes in `buffer`.
    /// - Throws: `CompressionError.fileAccess` if writing fails (disk full, closed writer),
    ///   `CompressionError.zlib` if zlib fails.
    public func write(_ buffer: UnsafeRawBufferPointer) throws {
        guard let file else { throw closedError() }
        try deflater.compress(buffer, into: &pendingOutput, finish: false)
        uncompressedByteCount += buffer.count
        if pendingOutput.count >= Self.flushThreshold {
            try flushPendingOutput(to: file)
        }
    }

    /// Compresses and appends `bytes`.
    /// - Throws: the errors of `write(_:)` for buffers.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Compresses and appends `data` (`Data`, slices and other `DataProtocol` values).
    /// - Throws: the errors of `write(_:)` for buffers.
    public func write(_ data: some DataProtocol) throws {
        for region in data.regions {
            try region.withUnsafeBytes { try write($0) }
        }
    }

    /// Finishes the gzip stream, writes it out, fsyncs and closes the file.
    ///
    /// The file is closed even when this throws; calling `close()` again does nothing.
    /// - Throws: `CompressionError.fileAccess` if writing, syncing or closing fails.
    public func close() throws {
        guard var file else { return }
        self.file = nil
        do {
            try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), into: &pendingOutput, finish: true)
            try flushPendingOutput(to: file)
            try file.synchronize()
        } catch {
            file.closeIgnoringErrors()
            throw error
        }
        try file.closeFile()
    }

    deinit {
        // Dropped without close(): release the descriptor; the file stays incomplete.
        if var file { file.closeIgnoringErrors() }
    }

    private func flushPendingOutput(to file: CompressedFileDescriptor) throws {
        try pendingOutput.withUnsafeBytes { try file.writeAll($0) }
        compressedByteCount += pendingOutput.count
        pendingOutput.removeAll(keepingCapacity: true)
    }

    private func closedError() -> CompressionError {
        .fileAccess(path: path, operation: "write", reason: "the gzip writer is already closed")
    }
}

/// Reads a gzip file as a stream of decompressed chunks (for verifying bundles).
///
/// Files with several gzip members one after another are read through, as `gzip -dc`
/// does. Not `Sendable`: one reader belongs to one task at a time.
public final class GzipFileReader {
    /// Compressed bytes are read from the file in chunks of this size.
    static let inputChunkSize = 256 * 1024

    public let path: String
    /// Decompressed bytes returned so far.
    public var decompressedByteCount: Int { inflater.totalOutputCount }
    /// Compressed bytes read from the file so far (a cap on them bounds what a growing or
    /// oversized file can make a reader consume).
    public private(set) var compressedByteCount = 0

    private let inflater: Inflater
    private var file: CompressedFileDescriptor
    private let input: UnsafeMutableRawBufferPointer
    // The compressed bytes read from the file but not yet given to zlib: input[start..<end].
    private var inputStart = 0
    private var inputEnd = 0
    private var reachedEndOfFile = false

    /// Opens the gzip file at `path`.
    /// - Throws: `CompressionError.fileAccess` if the file cannot be opened,
    ///   `CompressionError.zlib` if zlib cannot allocate its state.
    public init(path: String) throws {
        self.path = path
        inflater = try Inflater(format: .gzip)
        file = try CompressedFileDescriptor(reading: path)
        input = .allocate(byteCount: Self.inputChunkSize, alignment: 16)
    }

    deinit {
        file.closeIgnoringErrors()
        input.deallocate()
    }

    /// Returns the next decompressed bytes, at most `maxBytes` of them (fewer only at the
    /// end of the file), or `nil` once the whole stream was returned.
    /// - Throws: `CompressionError.truncated` if the file ends mid-stream (after returning
    ///   the bytes that could be decompressed), `.corruptData` for invalid data or a bad
    ///   checksum, `.fileAccess` if reading fails.
    public func read(maxBytes: Int) throws -> [UInt8]? {
        precondition(maxBytes > 0, "maxBytes must be positive")
        var output: [UInt8] = []
        output.reserveCapacity(min(maxBytes, 4 * Self.inputChunkSize))
        while output.count < maxBytes {
            if inputStart == inputEnd {
                if reachedEndOfFile { break }
                guard try refillInput() else { break }
            }
            let pending = UnsafeRawBufferPointer(rebasing: input[inputStart..<inputEnd])
            inputStart += try inflater.inflate(pending, into: &output, maxOutput: maxBytes - output.count)
        }
        if output.isEmpty {
            try inflater.finish()  // throws .truncated if the file stopped mid-stream
            return nil
        }
        return output
    }

    /// Reads the rest of the stream into one array.
    /// - Parameter limit: the most decompressed bytes accepted.
    /// - Throws: `CompressionError.outputTooLarge` past `limit`, and the errors of `read(maxBytes:)`.
    public func readToEnd(limit: Int = .max) throws -> [UInt8] {
        var all: [UInt8] = []
        while let chunk = try read(maxBytes: 1 << 20) {
            all.append(contentsOf: chunk)
            if all.count > limit { throw CompressionError.outputTooLarge(limit: limit) }
        }
        return all
    }

    /// Reads the next compressed chunk from the file; false at the end of the file.
    private func refillInput() throws -> Bool {
        let count = try file.readChunk(into: input)
        compressedByteCount += count
        inputStart = 0
        inputEnd = count
        if count == 0 { reachedEndOfFile = true }
        return count > 0
    }
}

/// A POSIX file descriptor with the `errno` text in every error, so that a full disk reads
/// as "No space left on device" rather than a generic Foundation message.
struct CompressedFileDescriptor {
    let path: String
    private(set) var descriptor: Int32

    /// Creates or truncates `path` for writing.
    init(creating path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.error(path, "create") }
    }

    /// Opens `path` for reading.
    init(reading path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.error(path, "open") }
    }

    func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        let code = PokeArchive.writeAll(descriptor, bytes)
        guard code == 0 else { errno = code; throw Self.error(path, "write") }
    }

    /// Reads up to `buffer.count` bytes; 0 means end of file.
    func readChunk(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = read(descriptor, buffer.baseAddress!, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw Self.error(path, "read") }
        }
    }

    func synchronize() throws {
        guard fsync(descriptor) == 0 else { throw Self.error(path, "sync") }
    }

    mutating func closeFile() throws {
        let result = close(descriptor)
        descriptor = -1
        // After EINTR the descriptor is already released on Linux: do not retry.
        guard result == 0 || errno == EINTR else { throw Self.error(path, "close") }
    }

    mutating func closeIgnoringErrors() {
        _ = close(descriptor)
        descriptor = -1
    }

    private static func error(_ path: String, _ operation: String) -> CompressionError {
        .fileAccess(path: path, operation: operation, reason: String(cString: strerror(errno)))
    }
}
