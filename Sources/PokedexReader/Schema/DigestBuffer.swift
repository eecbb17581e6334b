import Foundation
import PokeArchive

/// The bytes of ``ContentDigest``'s encoded rows waiting for the hasher, in one raw buffer
/// that goes to SHA-256 each time it fills.
///
/// Built for the unoptimised code of an app's debug build as much as for release: a byte
/// is one pointer store, a run of plain text one `memcpy`, the search for the bytes JSON
/// escapes one `strcspn` (C, optimised whatever the app's build), where Array appends and
/// a Swift loop over every byte cost a call each without the optimiser.
final class DigestBuffer {
    /// Bytes gathered before they go to the hasher.
    static let flushSize = 64 * 1024

    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var hasher = SHA256()

    /// The bytes `strcspn` stops at: `"`, `\\` and 0x01-0x1F (0x00 ends the C string
    /// SQLite gives, and an embedded one stops the scan too).
    nonisolated(unsafe) private static let escaped: UnsafeMutablePointer<CChar> = {
        let set: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "\\")] + Array(1...0x1F) + [0]
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: set.count)
        for (index, byte) in set.enumerated() { pointer[index] = CChar(bitPattern: byte) }
        return pointer
    }()

    private static let hexDigits: StaticString = "0123456789abcdef"

    init() {
        capacity = Self.flushSize
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Makes room for `needed` more bytes: what is gathered goes to the hasher first when
    /// they would not fit, and a value larger than the buffer grows it.
    @inline(__always)
    private func reserve(_ needed: Int) {
        if count + needed <= capacity { return }
        flush()
        if needed > capacity {
            storage.deallocate()
            capacity = needed
            storage = .allocate(capacity: capacity)
        }
    }

    private func flush() {
        hasher.update(UnsafeRawBufferPointer(start: storage, count: count))
        count = 0
    }

    func append(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        memcpy(storage + count, base, bytes.count)
        count += bytes.count
    }

    /// `null`.
    func appendNull() {
        reserve(4)
        storage[count] = UInt8(ascii: "n")
        storage[count + 1] = UInt8(ascii: "u")
        storage[count + 2] = UInt8(ascii: "l")
        storage[count + 3] = UInt8(ascii: "l")
        count += 4
    }

    /// `]` and the newline that end a row.
    func appendRowEnd() {
        reserve(2)
        storage[count] = UInt8(ascii: "]")
        storage[count + 1] = UInt8(ascii: "\n")
        count += 2
    }

    /// `value` in decimal, written from its last digit back.
    func appendDecimal(_ value: Int) {
        reserve(20)  // "-9223372036854775808"
        var magnitude = value.magnitude
        var digits = 0
        var rest = magnitude
        repeat {
            digits += 1
            rest /= 10
        } while rest > 0
        if value < 0 {
            storage[count] = UInt8(ascii: "-")
            count += 1
        }
        var position = count + digits - 1
        repeat {
            storage[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            position -= 1
        } while magnitude > 0
        count += digits
    }

    /// `text` as a JSON string in the digest's encoding: only `"`, `\\` and bytes below
    /// 0x20 escaped, the latter as `\\u00XX` in lowercase hex; runs of plain bytes copied whole.
    func appendJSONString(_ text: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        if let base = text.baseAddress {
            var start = 0
            while start < text.count {
                // SQLite's text is NUL-terminated, so strcspn never reads past the value.
                let run = strcspn(UnsafeRawPointer(base + start).assumingMemoryBound(to: CChar.self), Self.escaped)
                let plain = min(Int(run), text.count - start)
                append(UnsafeBufferPointer(start: base + start, count: plain))
                start += plain
                guard start < text.count else { break }
                appendEscaped(base[start])
                start += 1
            }
        }
        append(UInt8(ascii: "\""))
    }

    private func appendEscaped(_ byte: UInt8) {
        reserve(6)
        storage[count] = UInt8(ascii: "\\")
        if byte >= 0x20 {
            storage[count + 1] = byte
            count += 2
            return
        }
        Self.hexDigits.withUTF8Buffer { hex in
            storage[count + 1] = UInt8(ascii: "u")
            storage[count + 2] = UInt8(ascii: "0")
            storage[count + 3] = UInt8(ascii: "0")
            storage[count + 4] = hex[Int(byte >> 4)]
            storage[count + 5] = hex[Int(byte & 0xF)]
        }
        count += 6
    }

    /// Hashes what is left and returns the digest; the buffer is used up.
    func finalize() -> SHA256Digest {
        flush()
        let done = hasher
        return done.finalize()
    }
}
