import CZlib
import Foundation

/// A streaming deflate compressor: feed it input in any chunking and it appends the
/// compressed bytes to an array you own.
///
/// Not `Sendable`: the `z_stream` is mutable state owned by one caller at a time.
///
/// Gzip output is deterministic. The header has mtime 0, no file name or comment and
/// the OS byte 255 ("unknown"), so the same input, level and zlib build give
/// byte-identical streams on every platform.
public final class Deflater {
    /// The gzip header's OS byte: 255, "unknown", instead of the build platform's code.
    static let gzipOperatingSystemUnknown: Int32 = 255

    public let format: CompressionFormat
    /// Set once the end of the stream has been written.
    public private(set) var isFinished = false

    // Both pointers stay at fixed addresses: zlib holds on to them between calls.
    private let stream: UnsafeMutablePointer<z_stream>
    private let gzipHeader: UnsafeMutablePointer<gz_header>
    private let scratch = ZlibScratchBuffer()

    /// Starts a compressed stream.
    /// - Parameters:
    ///   - format: zlib, gzip or raw deflate framing.
    ///   - level: 0 (store) to 9 (smallest); 6 is zlib's default balance.
    /// - Throws: `CompressionError.zlib` if the level is out of range or memory runs out.
    public init(format: CompressionFormat = .zlib, level: Int32 = 6) throws {
        self.format = format
        // Set zlib up before the stored pointers are assigned: a throw from a fully
        // initialized object would also run deinit, which must not free them twice.
        let stream = makeZStream()
        let gzipHeader = UnsafeMutablePointer<gz_header>.allocate(capacity: 1)
        gzipHeader.initialize(to: gz_header())
        gzipHeader.pointee.os = Self.gzipOperatingSystemUnknown
        do {
            try Self.start(stream, format: format, level: level, gzipHeader: gzipHeader)
        } catch {
            Self.release(stream, gzipHeader)
            throw error
        }
        self.stream = stream
        self.gzipHeader = gzipHeader
    }

    private static func start(
        _ stream: UnsafeMutablePointer<z_stream>, format: CompressionFormat, level: Int32,
        gzipHeader: UnsafeMutablePointer<gz_header>
    ) throws {
        guard (Z_DEFAULT_COMPRESSION...Z_BEST_COMPRESSION).contains(level) else {
            throw CompressionError.zlib(code: Z_STREAM_ERROR, message: "compression level \(level) is not in 0...9")
        }
        // Memory level 8 is zlib's default: 128 KiB of state, the best speed for its size.
        let code = pokesync_deflateInit2(stream, level, format.windowBits, 8, Z_DEFAULT_STRATEGY)
        guard code == Z_OK else {
            throw CompressionError.from(code: code, stream: stream, while: "starting compression")
        }
        guard format == .gzip else { return }
        let headerCode = deflateSetHeader(stream, gzipHeader)
        guard headerCode == Z_OK else {
            deflateEnd(stream)
            throw CompressionError.zlib(code: headerCode, message: "cannot set the gzip header")
        }
    }

    deinit {
        deflateEnd(stream)
        Self.release(stream, gzipHeader)
    }

    private static func release(_ stream: UnsafeMutablePointer<z_stream>, _ gzipHeader: UnsafeMutablePointer<gz_header>) {
        stream.deinitialize(count: 1)
        stream.deallocate()
        gzipHeader.deinitialize(count: 1)
        gzipHeader.deallocate()
    }

    /// Compresses `input`, appending output to `output`; `finish` flushes the end of the stream.
    ///
    /// Without `finish`, zlib may keep some input buffered and append nothing yet; that is
    /// normal. After a call with `finish: true` the stream is complete and takes no more input.
    /// - Throws: `CompressionError.zlib` if zlib fails (out of memory) or if input arrives
    ///   after the stream was finished.
    public func compress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8], finish: Bool) throws {
        if isFinished {
            guard input.isEmpty else {
                throw CompressionError.zlib(code: Z_STREAM_ERROR, message: "input given after the stream was finished")
            }
            return
        }
        var next = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        var remaining = input.count
        // avail_in is 32 bits wide: feed larger buffers in slices.
        repeat {
            let slice = min(remaining, Int(UInt32.max))
            let isLastSlice = slice == remaining
            stream.pointee.next_in = next
            stream.pointee.avail_in = UInt32(slice)
            try run(flush: finish && isLastSlice ? Z_FINISH : Z_NO_FLUSH, into: &output)
            next = next.map { $0 + slice }
            remaining -= slice
        } while remaining > 0
        stream.pointee.next_in = nil
    }

    /// Starts a new stream with the same format, level and gzip header, keeping zlib's
    /// memory: for many small streams (a file each) it spares setting up zlib each time.
    /// - Throws: `CompressionError.zlib` if zlib refuses (it does not, for a live stream).
    public func reset() throws {
        var code = deflateReset(stream)
        // deflateReset forgets the header: the same fixed one again (no name, no time).
        if code == Z_OK, format == .gzip { code = deflateSetHeader(stream, gzipHeader) }
        guard code == Z_OK else { throw CompressionError.zlib(code: code, message: "cannot start a new stream") }
        isFinished = false
    }

    /// Compresses the bytes of `input`; see `compress(_:into:finish:)` for UnsafeRawBufferPointer.
    /// - Throws: `CompressionError.zlib` as the buffer variant does.
    public func compress(_ input: [UInt8], into output: inout [UInt8], finish: Bool) throws {
        try input.withUnsafeBytes { try compress($0, into: &output, finish: finish) }
    }

    /// Compresses `input` region by region (for `Data`, slices and other `DataProtocol` values).
    /// - Throws: `CompressionError.zlib` as the buffer variant does.
    public func compress(_ input: some DataProtocol, into output: inout [UInt8], finish: Bool) throws {
        for region in input.regions {
            try region.withUnsafeBytes { try compress($0, into: &output, finish: false) }
        }
        if finish {
            try compress(UnsafeRawBufferPointer(start: nil, count: 0), into: &output, finish: true)
        }
    }

    /// Calls `deflate` until zlib has taken all of `avail_in` and, when finishing, written
    /// the end of the stream.
    private func run(flush: Int32, into output: inout [UInt8]) throws {
        while true {
            stream.pointee.next_out = scratch.bytes
            stream.pointee.avail_out = UInt32(scratch.count)
            let code = deflate(stream, flush)
            let produced = scratch.count - Int(stream.pointee.avail_out)
            if produced > 0 {
                output.append(contentsOf: UnsafeBufferPointer(start: scratch.bytes, count: produced))
            }
            switch code {
            case Z_STREAM_END:
                isFinished = true
                return
            case Z_OK, Z_BUF_ERROR:
                if stream.pointee.avail_out == 0 { continue }  // output may still be pending
                if stream.pointee.avail_in == 0 && flush != Z_FINISH { return }
                // Room was left yet the stream neither ended nor took all input: no progress.
                if code == Z_BUF_ERROR {
                    throw CompressionError.zlib(code: code, message: "compression made no progress")
                }
            default:
                throw CompressionError.from(code: code, stream: stream, while: "compressing")
            }
        }
    }
}
