/// The byte-level pieces of a JSON string that every reader and writer of JSON here
/// shares: hex digits both ways, the eight-bytes-at-a-time scan for what needs a closer
/// look, and the decoding of a string's contents.
package enum JSONStringBytes {
    /// The value of an ASCII hex digit, either case, else nil.
    @inline(__always)
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The lower-case hex digit of the low four bits of `value`.
    @inline(__always)
    static func hexDigit(_ value: Int) -> UInt8 {
        let digits: StaticString = "0123456789abcdef"
        return digits.utf8Start[value & 0xF]
    }

    /// True when some byte of `word` is `"`, `\`, below 0x20 or at least 0x80 (or 0x7F
    /// too, with `orDelete`: the renderer writes it escaped). May flag a word with none
    /// of those (the byte loop then decides), never the other way round.
    @inline(__always)
    static func needsAttention(_ word: UInt64, orDelete: Bool) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(JSONByte.quote))
        let backslashes = word ^ (ones &* UInt64(JSONByte.backslash))
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        // A byte of 0x7F carries into its high bit; one of 0x80 or more has it already
        // (and a carry out of an 0xFF byte only flags more).
        let high = orDelete ? word | (word &+ ones) : word
        return (hasQuote | hasBackslash | hasControl | high) & highs != 0
    }

    /// The text of a JSON string's contents as written between the quotes: escapes
    /// resolved (`\uXXXX` with surrogate pairs joined; a lone surrogate becomes U+FFFD),
    /// invalid UTF-8 repaired. Decoded here for the schemas' property names and the
    /// scanner's collected strings; the renderer keeps its own (`decodedKey`), which must keep
    /// a lone surrogate as its three-byte form for Python's order, as no `String` can.
    package static func decode(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var bytes: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
            bytes.removeAll(keepingCapacity: true)
        }
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= raw.count else { return nil }
            var value: UInt32 = 0
            for byte in raw[at..<(at + 4)] {
                guard let digit = hexValue(byte) else { return nil }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < raw.count else {
                bytes.append(byte)
                index += 1
                continue
            }
            let escaped = raw[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                guard var code = hex4(index) else { continue }
                index += 4
                if (0xD800..<0xDC00).contains(code), index + 6 <= raw.count,
                   raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u"),
                   let low = hex4(index + 2), (0xDC00..<0xE000).contains(low) {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                flush()
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: bytes.append(escaped)  // `"`, `\`, `/`
            }
        }
        flush()
        return String(scalars)
    }
}
