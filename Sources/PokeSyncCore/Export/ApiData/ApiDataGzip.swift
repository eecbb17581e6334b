import PokeArchive

/// The `.gz` of each file of an api-data export (`--gzip`), for nginx's `gzip_static` or a
/// CDN that takes precompressed files. Deterministic: `Deflater`'s gzip header has no file
/// name, mtime 0 and OS "unknown", so the same file gives the same bytes on every export.
///
/// One per worker thread: it keeps zlib's state and its output buffer between files, so
/// compressing thousands of small files sets zlib up once. Not `Sendable`, as `Deflater`.
final class ApiDataGzip {
    /// zlib's default: nginx's own `gzip_comp_level` 6 makes files about this size.
    static let level: Int32 = 6

    private let deflater: Deflater
    private var output: [UInt8] = []

    /// - Throws: `CompressionError.zlib` if zlib cannot start (out of memory).
    init() throws {
        deflater = try Deflater(format: .gzip, level: Self.level)
    }

    /// Gzips `bytes` as one whole stream and hands the result to `body` (valid only there).
    /// - Throws: `CompressionError.zlib` if zlib fails; what `body` throws.
    func compressed<Result>(_ bytes: UnsafeRawBufferPointer,
                            _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try deflater.reset()
        output.removeAll(keepingCapacity: true)
        try deflater.compress(bytes, into: &output, finish: true)
        return try output.withUnsafeBytes(body)
    }
}
