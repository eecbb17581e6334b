import Foundation

/// Reads a `.tar.gz` file as a stream of headers and content chunks, checking its structure
/// and its `TarLimits` as it goes; it never holds more than a chunk in memory.
///
/// Checked here: gzip data and CRC, each header's checksum, ustar or GNU magic, numeric
/// fields (octal, or GNU base-256 for sizes), the entry count, the sum of declared sizes,
/// the compressed bytes read, the expanded stream size, and the end: two zero blocks, then
/// nothing but zero padding to the end of the gzip stream. Entry types and names are not
/// judged here: `TarArchive` and `SafeExtractor` apply the safety rules to what this returns.
///
/// Not `Sendable`: one reader belongs to one task at a time.
public final class TarReader {
    /// Decompressed bytes pulled from the gzip layer per step, and the default content chunk.
    public static let chunkSize = 64 * 1024

    public let path: String
    public let limits: TarLimits
    /// Asked before each chunk is taken from the gzip layer: true ends the read with
    /// `CancellationError` (a cancelled install stops within one 64 kB chunk, not at the
    /// end of a 30 MB entry).
    public let stop: (@Sendable () -> Bool)?
    /// Headers read so far.
    public private(set) var entryCount = 0
    /// The sum of the sizes the headers read so far declared.
    public private(set) var declaredBytes = 0
    /// Compressed bytes read from the file so far.
    public var compressedByteCount: Int { gzip.compressedByteCount }
    /// Bytes of the tar stream (decompressed) taken from the gzip layer so far.
    public var streamByteCount: Int { gzip.decompressedByteCount }

    private let gzip: GzipFileReader
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    private var gzipEnded = false
    private var reachedEnd = false
    /// The current entry's unread content and the padding after it.
    private var current: TarHeader?
    private var contentLeft = 0
    private var paddingLeft = 0

    /// Opens the `.tar.gz` file at `path`.
    /// - Parameter stop: asked before each chunk; true stops the read (see ``stop``).
    /// - Throws: `TarError.io` if it cannot be opened, `.overLimit` if the file is larger
    ///   than `limits.maxCompressedBytes`.
    public init(path: String, limits: TarLimits, stop: (@Sendable () -> Bool)? = nil) throws {
        self.path = path
        self.limits = limits
        self.stop = stop
        do {
            gzip = try GzipFileReader(path: path)
        } catch let error as CompressionError {
            throw TarError.reading(error, archive: path, entry: nil)
        }
        // Fail at once on a file already too big; the running count catches one that grows.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
           size > limits.maxCompressedBytes {
            throw TarError.overLimit(archive: path, entry: nil,
                                     reason: "the file is \(size) bytes, more than the cap of \(limits.maxCompressedBytes)")
        }
    }

    /// Skips what is left of the current entry and returns the next header, or nil after
    /// the end-of-archive marker (once the rest of the stream was checked to be padding).
    /// - Throws: `TarError.corrupt`, `.truncated`, `.overLimit` or `.io`; `CancellationError`
    ///   when ``stop`` says so.
    public func next() throws -> TarHeader? {
        if reachedEnd { return nil }
        while contentLeft > 0 { _ = try readContent(maxBytes: Self.chunkSize) }
        try skip(paddingLeft, inside: current?.name)
        paddingLeft = 0
        current = nil

        let offset = streamByteCount - (buffer.count - bufferStart)
        guard try fill(TarLayout.blockSize) else {
            throw TarError.truncated(archive: path, entry: nil)
        }
        let isZero = buffer[bufferStart..<(bufferStart + TarLayout.blockSize)].allSatisfy { $0 == 0 }
        if isZero {
            try readEnd(offset: offset)
            return nil
        }
        let header = try buffer.withUnsafeBytes {
            try decodeHeader(UnsafeRawBufferPointer(rebasing: $0[bufferStart..<(bufferStart + TarLayout.blockSize)]), offset: offset)
        }
        bufferStart += TarLayout.blockSize
        entryCount += 1
        guard entryCount <= limits.maxEntryCount else {
            throw TarError.overLimit(archive: path, entry: header.name,
                                     reason: "more than \(limits.maxEntryCount) entries, the cap")
        }
        guard header.size <= limits.maxUnpackedBytes - declaredBytes else {
            throw TarError.overLimit(archive: path, entry: header.name,
                                     reason: "\(header.size) bytes take the archive past its cap of \(limits.maxUnpackedBytes) unpacked bytes")
        }
        declaredBytes += header.size
        current = header
        contentLeft = header.size
        paddingLeft = (TarLayout.blockSize - header.size % TarLayout.blockSize) % TarLayout.blockSize
        return header
    }

    /// The next chunk of the current entry's content, at most `maxBytes`, or nil at its end.
    /// - Throws: `TarError.truncated` if the stream ends inside the entry, and the errors of `next()`.
    public func readContent(maxBytes: Int = TarReader.chunkSize) throws -> [UInt8]? {
        precondition(maxBytes > 0, "maxBytes must be positive")
        guard contentLeft > 0 else { return nil }
        let wanted = min(maxBytes, contentLeft, Self.chunkSize)
        if buffer.count - bufferStart < wanted {
            guard try fill(1) else { throw TarError.truncated(archive: path, entry: current?.name) }
        }
        let count = min(wanted, buffer.count - bufferStart)
        let chunk = Array(buffer[bufferStart..<(bufferStart + count)])
        bufferStart += count
        contentLeft -= count
        return chunk
    }

    // MARK: Stream

    /// Makes at least `count` bytes available from `bufferStart`; false if the stream ended first.
    private func fill(_ count: Int) throws -> Bool {
        while buffer.count - bufferStart < count {
            if gzipEnded { return false }
            if bufferStart > 0 {
                buffer.removeSubrange(0..<bufferStart)
                bufferStart = 0
            }
            if let stop, stop() { throw CancellationError() }
            let chunk: [UInt8]?
            do {
                chunk = try gzip.read(maxBytes: Self.chunkSize)
            } catch let error as CompressionError {
                throw TarError.reading(error, archive: path, entry: current?.name)
            }
            guard gzip.compressedByteCount <= limits.maxCompressedBytes else {
                throw TarError.overLimit(archive: path, entry: current?.name,
                                         reason: "more than \(limits.maxCompressedBytes) compressed bytes, the cap")
            }
            guard let chunk else {
                gzipEnded = true
                return false
            }
            guard gzip.decompressedByteCount <= limits.maxStreamBytes else {
                throw TarError.overLimit(archive: path, entry: current?.name,
                                         reason: "the gzip stream expands to more than \(limits.maxStreamBytes) bytes, the cap")
            }
            buffer.append(contentsOf: chunk)
        }
        return true
    }

    private func skip(_ count: Int, inside entry: String?) throws {
        guard count > 0 else { return }
        guard try fill(count) else { throw TarError.truncated(archive: path, entry: entry) }
        bufferStart += count
    }

    /// After a first zero block: a second one, then only zeros to the end of the stream.
    private func readEnd(offset: Int) throws {
        bufferStart += TarLayout.blockSize
        guard try fill(TarLayout.blockSize) else { throw TarError.truncated(archive: path, entry: nil) }
        guard buffer[bufferStart..<(bufferStart + TarLayout.blockSize)].allSatisfy({ $0 == 0 }) else {
            throw TarError.corrupt(archive: path, entry: nil,
                                   reason: "a lone zero block at byte \(offset) followed by more data")
        }
        bufferStart += TarLayout.blockSize
        var padding = 0
        while try fill(1) {
            let available = buffer.count - bufferStart
            guard buffer[bufferStart...].allSatisfy({ $0 == 0 }) else {
                throw TarError.corrupt(archive: path, entry: nil, reason: "data after the end-of-archive marker")
            }
            padding += available
            bufferStart = buffer.count
            guard padding <= TarLayout.maxTrailingPadding else {
                throw TarError.overLimit(archive: path, entry: nil,
                                         reason: "more than \(TarLayout.maxTrailingPadding) bytes of padding after the end-of-archive marker")
            }
        }
        reachedEnd = true
    }
}
