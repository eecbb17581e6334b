import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a deterministic gzip'd ustar archive, streaming: entries in, `.tar.gz` out.
///
/// The same entries give byte-identical files (reproducible-builds.org "archives"):
/// entries must come in strictly increasing byte order of their UTF-8 names (folders
/// compared without their trailing "/"), and every header has fixed metadata: mode 0644
/// for files and 0755 for folders, uid and gid 0 with empty user and group names, one
/// modification time for all, typeflag '0' or '5', magic "ustar\0" and version "00".
/// Names up to 100 bytes go in `name`; longer ones are split at a "/" into `prefix`
/// (up to 155 bytes) and `name`, as POSIX ustar does. The archive ends with two zero
/// blocks and is padded to a 10240-byte record, as GNU tar and Python's tarfile pad it.
/// The gzip layer has no name and mtime 0 (see `GzipFileWriter`).
///
/// Only names `TarArchive` and `SafeExtractor` accept are written: relative, no `.`, `..`
/// or empty components, no backslash or control characters, no duplicates, no file used
/// as a folder. The file is written in place: write to a temporary name and rename it.
///
/// Not `Sendable`: one writer belongs to one task at a time.
public final class TarWriter {
    /// Bytes read from a source file per step.
    static let copyChunkSize = 256 * 1024

    public let path: String
    /// The modification time written in every header (seconds since 1970).
    public let modificationTime: Int
    /// Entries written so far.
    public private(set) var entryCount = 0
    /// Bytes of the uncompressed tar stream written so far.
    public var tarByteCount: Int { gzip.uncompressedByteCount }
    /// Bytes of the `.tar.gz` file; its size once `finish()` returned.
    public var compressedByteCount: Int { gzip.compressedByteCount }

    private let gzip: GzipFileWriter
    private var tracker = TarNameTracker()
    private var previousName: [UInt8]?
    private var isFinished = false
    /// Set when a write failed half-way: the stream is no longer a valid archive.
    private var failure: TarError?

    /// Creates (or truncates) the `.tar.gz` file at `path`.
    /// - Parameters:
    ///   - level: the deflate level, 0 to 9; bundles use 9.
    ///   - modificationTime: the mtime of every entry, default 0; 0 to 8^11 - 1.
    /// - Throws: `TarError.io` if the file cannot be created or the level is invalid.
    public init(path: String, level: Int32 = 9, modificationTime: Int = 0) throws {
        precondition((0...TarLayout.maxOctalSize).contains(modificationTime), "mtime out of ustar range")
        self.path = path
        self.modificationTime = modificationTime
        do {
            gzip = try GzipFileWriter(path: path, level: level)
        } catch let error as CompressionError {
            throw Self.ioError(error, path: path)
        }
    }

    /// Adds a folder entry (`name` without or with a trailing "/").
    /// - Throws: `TarError.invalidEntry` for a refused or out-of-order name, `.io` if writing fails.
    public func addDirectory(_ name: String) throws {
        let clean = name.hasSuffix("/") ? String(name.dropLast()) : name
        let header = try header(for: clean, kind: .directory, size: 0)
        try write { try gzip.write(header) }
        entryCount += 1
    }

    /// Adds a file entry holding `contents`.
    /// - Throws: `TarError.invalidEntry` for a refused or out-of-order name, `.io` if writing fails.
    public func addFile(_ name: String, contents: some DataProtocol) throws {
        let header = try header(for: name, kind: .file, size: contents.count)
        try write {
            try gzip.write(header)
            try gzip.write(contents)
            try writePadding(after: contents.count)
        }
        entryCount += 1
    }

    /// Adds a file entry with the content of the file at `sourcePath`, streamed in chunks.
    /// - Throws: `TarError.io` if the source cannot be read, `.invalidEntry` for a refused
    ///   name or if the source's size changes while it is copied.
    public func addFile(_ name: String, contentsOfFile sourcePath: String) throws {
        let descriptor = open(sourcePath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TarError.posix(sourcePath, "open") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw TarError.posix(sourcePath, "read") }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw TarError.invalidEntry(archive: path, entry: name, reason: "\(sourcePath) is not a regular file")
        }
        let size = Int(status.st_size)
        let header = try header(for: name, kind: .file, size: size)
        try write {
            try gzip.write(header)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.copyChunkSize, alignment: 16)
            defer { buffer.deallocate() }
            var copied = 0
            while true {
                let count = read(descriptor, buffer.baseAddress!, buffer.count)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw TarError.posix(sourcePath, "read")
                }
                if count == 0 { break }
                copied += count
                guard copied <= size else { break }
                try gzip.write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
            guard copied == size else {
                // The header already promised `size` bytes: this archive cannot be finished.
                throw TarError.invalidEntry(archive: path, entry: name,
                                            reason: "\(sourcePath) changed size while it was copied (\(size) bytes, then \(copied))")
            }
            try writePadding(after: size)
        }
        entryCount += 1
    }

    /// Writes the end-of-archive marker and record padding, finishes the gzip stream,
    /// fsyncs and closes the file. Calling it again does nothing.
    /// - Throws: `TarError.io` if writing fails, or the error that broke an earlier write.
    public func finish() throws {
        if let failure { throw failure }
        guard !isFinished else { return }
        try write {
            let written = gzip.uncompressedByteCount + 2 * TarLayout.blockSize
            let padded = (written + TarLayout.recordSize - 1) / TarLayout.recordSize * TarLayout.recordSize
            try gzip.write([UInt8](repeating: 0, count: padded - gzip.uncompressedByteCount))
            try gzip.close()
        }
        isFinished = true
    }

    // MARK: Headers

    /// Checks `name` (order, safety, fit) and returns its 512-byte header.
    private func header(for name: String, kind: TarEntry.Kind, size: Int) throws -> [UInt8] {
        if let failure { throw failure }
        guard !isFinished else {
            throw TarError.invalidEntry(archive: path, entry: name, reason: "the archive is already finished")
        }
        let bytes = Array(name.utf8)
        if case .failure(let refusal) = TarNamePolicy.check(bytes, isDirectory: kind == .directory) {
            throw TarError.invalidEntry(archive: path, entry: name, reason: refusal.reason)
        }
        if let previousName, !previousName.lexicographicallyPrecedes(bytes) {
            throw TarError.invalidEntry(archive: path, entry: name,
                                        reason: "out of order: names must be sorted by their UTF-8 bytes, without duplicates")
        }
        if let reason = tracker.admit(name, kind: kind) {
            throw TarError.invalidEntry(archive: path, entry: name, reason: reason)
        }
        guard size <= TarLayout.maxOctalSize else {
            throw TarError.invalidEntry(archive: path, entry: name, reason: "\(size) bytes is more than a ustar header can hold")
        }
        let stored = kind == .directory ? bytes + [UInt8(ascii: "/")] : bytes
        guard let (prefix, shortName) = Self.split(stored) else {
            throw TarError.invalidEntry(archive: path, entry: name,
                                        reason: "a name that does not fit a ustar header (155-byte prefix + 100-byte name)")
        }
        previousName = bytes
        return Self.block(name: shortName, prefix: prefix, kind: kind, size: size, mtime: modificationTime)
    }

    /// Splits a name as POSIX ustar stores it: whole in `name` when it fits in 100 bytes,
    /// else the longest prefix of at most 155 bytes ending before a "/", the rest (at most
    /// 100 bytes, not empty) in `name`. Python's tarfile splits the same way.
    static func split(_ name: [UInt8]) -> (prefix: ArraySlice<UInt8>, name: ArraySlice<UInt8>)? {
        if name.count <= TarLayout.name.count { return (name[0..<0], name[...]) }
        let searchEnd = min(name.count - 1, TarLayout.prefix.count)
        guard let slash = name[...searchEnd].lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let rest = name[(slash + 1)...]
        guard slash > 0, !rest.isEmpty, rest.count <= TarLayout.name.count else { return nil }
        return (name[..<slash], rest)
    }

    /// One ustar header block with pokesync's fixed metadata.
    static func block(name: ArraySlice<UInt8>, prefix: ArraySlice<UInt8>, kind: TarEntry.Kind, size: Int, mtime: Int) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: TarLayout.blockSize)
        block.replaceSubrange(TarLayout.name.lowerBound..<(TarLayout.name.lowerBound + name.count), with: name)
        TarLayout.putOctal(kind == .directory ? 0o755 : 0o644, into: &block, field: TarLayout.mode)
        TarLayout.putOctal(0, into: &block, field: TarLayout.uid)
        TarLayout.putOctal(0, into: &block, field: TarLayout.gid)
        TarLayout.putOctal(size, into: &block, field: TarLayout.size)
        TarLayout.putOctal(mtime, into: &block, field: TarLayout.mtime)
        block[TarLayout.typeflag] = UInt8(ascii: kind == .directory ? "5" : "0")
        block.replaceSubrange(TarLayout.magic, with: TarLayout.ustarMagic)
        block.replaceSubrange(TarLayout.version, with: TarLayout.ustarVersion)
        TarLayout.putOctal(0, into: &block, field: TarLayout.devMajor)
        TarLayout.putOctal(0, into: &block, field: TarLayout.devMinor)
        block.replaceSubrange(TarLayout.prefix.lowerBound..<(TarLayout.prefix.lowerBound + prefix.count), with: prefix)
        // Checksum as GNU tar writes it: six octal digits, NUL, space.
        let sum = block.withUnsafeBytes { TarLayout.checksums($0).unsigned }
        TarLayout.putOctal(sum, into: &block, field: TarLayout.checksum.lowerBound..<(TarLayout.checksum.upperBound - 1))
        block[TarLayout.checksum.upperBound - 1] = UInt8(ascii: " ")
        return block
    }

    // MARK: Writing

    private func writePadding(after size: Int) throws {
        let remainder = size % TarLayout.blockSize
        if remainder > 0 { try gzip.write([UInt8](repeating: 0, count: TarLayout.blockSize - remainder)) }
    }

    /// Runs one write step; a failure part-way leaves a broken stream, so it sticks.
    private func write(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as TarError {
            failure = error
            throw error
        } catch let error as CompressionError {
            let mapped = Self.ioError(error, path: path)
            failure = mapped
            throw mapped
        }
    }

    private static func ioError(_ error: CompressionError, path: String) -> TarError {
        switch error {
        case .fileAccess(let path, let operation, let reason): .io(path: path, operation: operation, reason: reason)
        default: .io(path: path, operation: "compress", reason: error.description)
        }
    }
}
