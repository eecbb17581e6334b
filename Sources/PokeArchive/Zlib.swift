import CZlib
import Foundation

/// One-shot compression and decompression of whole buffers, built on `Deflater` and
/// `Inflater`. Use those directly to stream data that does not fit in memory at once.
public enum Zlib {
    /// Compresses `data` into one complete stream. Any `DataProtocol`: `[UInt8]`, `Data`,
    /// or an `UnsafeRawBufferPointer` (whose one region is read in place, with no copy).
    /// - Parameters:
    ///   - format: zlib, gzip or raw deflate framing.
    ///   - level: 0 (store) to 9 (smallest).
    /// - Throws: `CompressionError.zlib` if the level is invalid or memory runs out.
    public static func compress(
        _ data: some DataProtocol, format: CompressionFormat = .zlib, level: Int32 = 6
    ) throws -> [UInt8] {
        let deflater = try Deflater(format: format, level: level)
        var output: [UInt8] = []
        output.reserveCapacity(data.count / 8 + 64)
        try deflater.compress(data, into: &output, finish: true)
        return output
    }

    /// Compresses `data` into one complete stream, returned as `Data`.
    /// - Throws: `CompressionError.zlib` if the level is invalid or memory runs out.
    public static func compressedData(
        _ data: some DataProtocol, format: CompressionFormat = .zlib, level: Int32 = 6
    ) throws -> Data {
        Data(try compress(data, format: format, level: level))
    }

    /// Decompresses one complete stream (for gzip: one or more members). Any
    /// `DataProtocol`, as for `compress`.
    /// - Parameter limit: the most bytes the output may hold.
    /// - Throws: `CompressionError.corruptData` for invalid data, `.truncated` if the stream
    ///   has no end marker, `.outputTooLarge` past `limit`, `.zlib` if zlib fails otherwise.
    public static func decompress(
        _ data: some DataProtocol, format: CompressionFormat = .zlib, limit: Int = .max
    ) throws -> [UInt8] {
        let inflater = try Inflater(format: format)
        var output: [UInt8] = []
        output.reserveCapacity(expectedInflatedSize(data.count, recorded: format == .gzip ? gzipRecordedSize(data) : nil,
                                                    limit: limit))
        try inflater.decompress(data, into: &output, limit: limit)
        try inflater.finish()
        return output
    }

    /// A first guess for the output array. Growing a large array step by step costs more
    /// than inflating into it, so use the size that a gzip trailer records (ISIZE, the size
    /// modulo 2^32 of its last member) when there is one; it is only a capacity hint.
    private static func expectedInflatedSize(_ compressedCount: Int, recorded: Int?, limit: Int) -> Int {
        // Deflate cannot expand data by more than about 1032:1, whatever a trailer claims.
        let ceiling = min(limit, compressedCount.multipliedReportingOverflow(by: 1032).overflow
                                 ? limit : compressedCount * 1032)
        if let recorded { return min(ceiling, recorded) }
        return min(ceiling, compressedCount.multipliedReportingOverflow(by: 4).overflow ? ceiling : compressedCount * 4)
    }

    /// The size a gzip stream's trailer records (ISIZE, the size modulo 2^32 of its last
    /// member, unchecked: a claim, not a fact), or nil for data too short to be gzip.
    public static func gzipRecordedSize(_ data: some DataProtocol) -> Int? {
        guard data.count >= 18 else { return nil }
        return data.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}

/// The framing around a deflate stream.
public enum CompressionFormat: Sendable {
    /// RFC 1950: a two-byte header and an Adler-32 trailer.
    case zlib
    /// RFC 1952: the gzip file format, as written and read by the `gzip` program.
    case gzip
    /// RFC 1951: bare deflate data, no header and no checksum.
    case raw

    /// The `windowBits` argument of `deflateInit2`/`inflateInit2`: the format is encoded
    /// in it (16 + bits asks for gzip, a negative value for raw deflate).
    var windowBits: Int32 {
        switch self {
        case .zlib: 15
        case .gzip: 16 + 15
        case .raw: -15
        }
    }
}

/// A failure while compressing, decompressing or streaming a gzip file.
public enum CompressionError: Error, CustomStringConvertible, Equatable {
    /// The compressed bytes are not a valid stream (zlib's `Z_DATA_ERROR`, a wrong header,
    /// a bad checksum, or bytes after the end of the stream).
    case corruptData(String)
    /// The input ended before the stream's end marker.
    case truncated
    /// Decompressing produced more than `limit` bytes.
    case outputTooLarge(limit: Int)
    /// zlib failed for a reason other than bad input, such as running out of memory.
    case zlib(code: Int32, message: String)
    /// Opening, reading, writing or syncing a compressed file failed.
    case fileAccess(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .corruptData(let detail): "corrupt compressed data: \(detail)"
        case .truncated: "corrupt compressed data: the stream ends before its end marker (truncated)"
        case .outputTooLarge(let limit): "compressed data expands to more than \(limit) bytes"
        case .zlib(let code, let message): "zlib error \(code): \(message)"
        case .fileAccess(let path, let operation, let reason): "cannot \(operation) \(path): \(reason)"
        }
    }

    /// Maps a zlib return code that signals failure, using the stream's `msg` when zlib set one.
    static func from(code: Int32, stream: UnsafeMutablePointer<z_stream>, while operation: String) -> CompressionError {
        let zlibMessage = stream.pointee.msg.map { String(cString: $0) }
        switch code {
        case Z_DATA_ERROR:
            return .corruptData(zlibMessage ?? "invalid deflate data")
        case Z_NEED_DICT:
            return .corruptData("the stream needs a preset dictionary")
        case Z_MEM_ERROR:
            return .zlib(code: code, message: "out of memory while \(operation)")
        default:
            return .zlib(code: code, message: zlibMessage ?? "\(operation) failed")
        }
    }
}

/// A fixed buffer that zlib writes into before the bytes are appended to the caller's
/// array: one allocation per stream instead of growing and trimming the array per call.
struct ZlibScratchBuffer: ~Copyable {
    static let defaultSize = 256 * 1024

    let bytes: UnsafeMutablePointer<UInt8>
    let count: Int

    init(count: Int = ZlibScratchBuffer.defaultSize) {
        self.bytes = .allocate(capacity: count)
        self.count = count
    }

    deinit { bytes.deallocate() }
}

/// Allocates a `z_stream` whose address stays fixed: zlib keeps a pointer back to it in its
/// internal state, so the struct must never move.
func makeZStream() -> UnsafeMutablePointer<z_stream> {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    stream.pointee.zalloc = nil
    stream.pointee.zfree = nil
    stream.pointee.opaque = nil
    stream.pointee.next_in = nil
    stream.pointee.avail_in = 0
    return stream
}
