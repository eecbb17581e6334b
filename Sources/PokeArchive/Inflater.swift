import CZlib
import Foundation

/// A streaming inflate decompressor: feed it compressed input in any chunking and it
/// appends the decompressed bytes to an array you own.
///
/// Not `Sendable`: the `z_stream` is mutable state owned by one caller at a time.
///
/// A gzip stream may hold several members one after another (as `cat a.gz b.gz` makes);
/// they are decompressed in turn, like `gzip -dc` does. In the zlib and raw formats any
/// byte after the end of the stream is corrupt data.
public final class Inflater {
    public let format: CompressionFormat
    /// True once the end marker of the stream (for gzip: of the last member so far) was read.
    public private(set) var isFinished = false
    /// Decompressed bytes produced so far, over all calls and gzip members.
    public private(set) var totalOutputCount = 0

    // Fixed address: zlib's internal state points back at the z_stream.
    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch = ZlibScratchBuffer()

    /// Starts decompressing a stream.
    /// - Parameter format: the framing the compressed bytes use.
    /// - Throws: `CompressionError.zlib` if zlib cannot allocate its state.
    public init(format: CompressionFormat = .zlib) throws {
        self.format = format
        // Throw before `self.stream` is assigned: once the object is fully initialized a
        // throw would also run deinit and free the stream a second time.
        let stream = makeZStream()
        let code = pokesync_inflateInit2(stream, format.windowBits)
        guard code == Z_OK else {
            let error = CompressionError.from(code: code, stream: stream, while: "starting decompression")
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw error
        }
        self.stream = stream
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Appends decompressed bytes; throws outputTooLarge past `limit` total output.
    ///
    /// All of `input` is consumed. Reaching the end of the stream is not signalled here:
    /// check `isFinished`, or call `finish()` after the last input.
    /// - Parameter limit: the most bytes the whole stream may expand to, counted over every
    ///   call on this inflater (a guard against decompression bombs).
    /// - Throws: `CompressionError.corruptData` for invalid data or bytes after the end,
    ///   `.outputTooLarge` past `limit`, `.zlib` if zlib fails otherwise.
    public func decompress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8], limit: Int = .max) throws {
        var remaining = input
        while !remaining.isEmpty {
            let allowed = limit - totalOutputCount
            // Ask for one byte more than allowed so that overshooting is detected.
            let before = totalOutputCount
            let consumed = try inflate(remaining, into: &output, maxOutput: allowed == .max ? .max : allowed + 1)
            if totalOutputCount > limit { throw CompressionError.outputTooLarge(limit: limit) }
            if consumed == 0 && totalOutputCount == before {
                throw CompressionError.zlib(code: Z_BUF_ERROR, message: "decompression made no progress")
            }
            remaining = UnsafeRawBufferPointer(rebasing: remaining[consumed...])
        }
    }

    /// Decompresses the bytes of `input`; see the buffer variant.
    /// - Throws: the errors of `decompress(_:into:limit:)` for buffers.
    public func decompress(_ input: [UInt8], into output: inout [UInt8], limit: Int = .max) throws {
        try input.withUnsafeBytes { try decompress($0, into: &output, limit: limit) }
    }

    /// Decompresses `input` region by region (for `Data`, slices and other `DataProtocol` values).
    /// - Throws: the errors of `decompress(_:into:limit:)` for buffers.
    public func decompress(_ input: some DataProtocol, into output: inout [UInt8], limit: Int = .max) throws {
        for region in input.regions {
            try region.withUnsafeBytes { try decompress($0, into: &output, limit: limit) }
        }
    }

    /// Call after the last input: throws .truncated if the stream's end marker was not seen.
    /// - Throws: `CompressionError.truncated` when the input stopped mid-stream (or was empty).
    public func finish() throws {
        guard isFinished else { throw CompressionError.truncated }
    }

    /// Inflates from `input` until it is used up, the stream ends with no input left, or
    /// `maxOutput` bytes were appended. Returns how many input bytes were consumed.
    ///
    /// This is the step that `GzipFileReader` uses to hand out bounded chunks.
    func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8], maxOutput: Int) throws -> Int {
        guard let base = input.baseAddress, !input.isEmpty, maxOutput > 0 else { return 0 }
        if isFinished { try startNextMember() }
        // avail_in is 32 bits wide; a bigger buffer is consumed over several calls.
        let offered = min(input.count, Int(UInt32.max))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(offered)
        defer { stream.pointee.next_in = nil; stream.pointee.avail_in = 0 }

        var produced = 0
        while produced < maxOutput {
            stream.pointee.next_out = scratch.bytes
            let capacity = min(scratch.count, maxOutput - produced)
            stream.pointee.avail_out = UInt32(capacity)
            let code = CZlib.inflate(stream, Z_NO_FLUSH)
            let written = capacity - Int(stream.pointee.avail_out)
            if written > 0 {
                output.append(contentsOf: UnsafeBufferPointer(start: scratch.bytes, count: written))
                produced += written
                totalOutputCount += written
            }
            switch code {
            case Z_STREAM_END:
                isFinished = true
                if stream.pointee.avail_in > 0 {
                    try startNextMember()
                    continue
                }
            case Z_OK:
                if stream.pointee.avail_out == 0 { continue }  // output may still be pending
                if stream.pointee.avail_in > 0 { continue }
            case Z_BUF_ERROR:
                break  // no progress possible: all input is used and no output is pending
            default:
                throw CompressionError.from(code: code, stream: stream, while: "decompressing")
            }
            break
        }
        return offered - Int(stream.pointee.avail_in)
    }

    /// Prepares for a following gzip member, or rejects bytes after the end of the stream.
    private func startNextMember() throws {
        guard format == .gzip else {
            throw CompressionError.corruptData("unexpected bytes after the end of the stream")
        }
        let code = inflateReset(stream)
        guard code == Z_OK else { throw CompressionError.from(code: code, stream: stream, while: "resetting") }
        isFinished = false
    }
}
