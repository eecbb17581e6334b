import Foundation

extension ApiDataRenderer {
    /// Reads the string at `position` (on its opening quote) and writes it as Python's
    /// `ensure_ascii` encoder does: printable ASCII as is; `"` `\` and the five short
    /// controls as `\"` `\\` `\b` `\f` `\n` `\r` `\t`; everything else, U+007F included,
    /// as `\u` and four lower-case hex digits, a surrogate pair above U+FFFF.
    /// - Parameter isValue: a value (not a key), so it gets the base URL when it begins
    ///   with `/api/v2` or `/schema/v2`.
    /// - Returns: whether the input string held a backslash (its raw bytes are not its text).
    // Its own loop beside the canonical scanner's `readString` (both per string of every
    // document, the hot paths of export and sync): the output forms differ byte by byte.
    mutating func writeString(isValue: Bool) throws(JSONSyntaxError) -> Bool {
        var cursor = position + 1
        var out = written
        output[out] = JSONByte.quote
        out += 1
        if isValue, !basePrefix.isEmpty, startsWithAPIPath(at: cursor) {
            basePrefix.withUnsafeBufferPointer { (output + out).update(from: $0.baseAddress!, count: $0.count) }
            out += basePrefix.count
        }
        var escaped = false
        while true {
            // Most of a string is printable ASCII: copy it eight bytes at a time.
            while cursor + 8 <= count {
                let word = UnsafeRawPointer(input + cursor).loadUnaligned(as: UInt64.self)
                guard !JSONStringBytes.needsAttention(word, orDelete: true) else { break }
                UnsafeMutableRawPointer(output + out).storeBytes(of: word, as: UInt64.self)
                cursor += 8
                out += 8
            }
            while cursor < count {
                let byte = input[cursor]
                guard byte >= 0x20, byte < 0x7F, byte != JSONByte.quote, byte != JSONByte.backslash else { break }
                output[out] = byte
                cursor += 1
                out += 1
            }
            guard cursor < count else { throw .endOfInput(at: count) }
            let byte = input[cursor]
            if byte == JSONByte.quote {
                output[out] = JSONByte.quote
                position = cursor + 1
                written = out + 1
                return escaped
            } else if byte == JSONByte.backslash {
                escaped = true
                (cursor, out) = try copyEscape(at: cursor, writingAt: out)
            } else if byte < 0x20 {
                throw JSONSyntaxError(offset: cursor, reason: "raw control character \(describe(byte)) in a string")
            } else if byte == 0x7F {
                out = Self.writeHexEscape(0x7F, to: output, at: out)
                cursor += 1
            } else if byte >= 0xC2 && byte <= 0xDF && cursor + 1 < count && input[cursor + 1] & 0xC0 == 0x80 {
                // The common two- and three-byte characters (Latin, kana, hangul...)
                // straight to `\uXXXX`; the rest goes through the full check below.
                out = Self.writeHexEscape(UInt16(byte & 0x1F) << 6 | UInt16(input[cursor + 1] & 0x3F), to: output, at: out)
                cursor += 2
            } else if (byte >= 0xE1 && byte <= 0xEC || byte >= 0xEE) && byte <= 0xEF && cursor + 2 < count
                        && input[cursor + 1] & 0xC0 == 0x80 && input[cursor + 2] & 0xC0 == 0x80 {
                let unit = UInt16(byte & 0x0F) << 12 | UInt16(input[cursor + 1] & 0x3F) << 6 | UInt16(input[cursor + 2] & 0x3F)
                out = Self.writeHexEscape(unit, to: output, at: out)
                cursor += 3
            } else {
                let (scalar, length) = try decodeUTF8(at: cursor)
                out = Self.writeEscaped(scalar, to: output, at: out)
                cursor += length
            }
        }
    }

    /// Whether the string contents at `start` begin with `/api/v2` or `/schema/v2`, the
    /// values ditto's `transform` rewrites (it matches the text after a quote).
    private func startsWithAPIPath(at start: Int) -> Bool {
        for prefix in Self.rewrittenPrefixes where start + prefix.count <= count {
            if prefix.withUnsafeBufferPointer({ memcmp(input + start, $0.baseAddress!, $0.count) == 0 }) { return true }
        }
        return false
    }

    /// The bytes of ``APIShape/basePath`` and ``APIShape/schemaBasePath``: the prefixes
    /// `--base-url` is written in front of.
    private static let rewrittenPrefixes = [Array(APIShape.basePath.utf8), Array(APIShape.schemaBasePath.utf8)]

    /// Reads one escape sequence at `start` (on the backslash) and writes what Python
    /// writes for the character it stands for. `\uXXXX` halves of a surrogate pair are
    /// each written again in lower case, which is what Python writes for the pair's
    /// character (and for a lone surrogate, which it keeps).
    /// - Returns: the input and output positions after it.
    private func copyEscape(at start: Int, writingAt out: Int) throws(JSONSyntaxError) -> (Int, Int) {
        guard start + 1 < count else { throw .endOfInput(at: count) }
        let letter = input[start + 1]
        switch letter {
        case JSONByte.quote, JSONByte.backslash, UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            output[out] = JSONByte.backslash
            output[out + 1] = letter
            return (start + 2, out + 2)
        case JSONByte.slash:
            output[out] = JSONByte.slash
            return (start + 2, out + 1)
        case UInt8(ascii: "u"):
            guard start + 6 <= count else { throw .endOfInput(at: count) }
            var value: UInt32 = 0
            for index in start + 2 ..< start + 6 {
                guard let digit = JSONStringBytes.hexValue(input[index]) else {
                    throw JSONSyntaxError(offset: index, reason: "invalid hex digit \(describe(input[index])) in a \\u escape")
                }
                value = value << 4 | UInt32(digit)
            }
            return (start + 6, Self.writeEscaped(value, to: output, at: out))
        default:
            throw JSONSyntaxError(offset: start, reason: "invalid escape: \(describe(letter)) after a backslash")
        }
    }

    /// Decodes one multi-byte UTF-8 sequence at `start` (no overlong forms, no encoded
    /// surrogates, nothing above U+10FFFF).
    /// - Returns: the code point and the sequence's length.
    private func decodeUTF8(at start: Int) throws(JSONSyntaxError) -> (UInt32, Int) {
        let lead = input[start]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw JSONSyntaxError(offset: start, reason: "invalid UTF-8 lead \(describe(lead)) in a string")
        }
        guard start + length <= count else { throw .endOfInput(at: count) }
        var scalar = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for index in start + 1 ..< start + length {
            let byte = input[index]
            guard (index == start + 1 ? secondRange : 0x80...0xBF).contains(byte) else {
                throw JSONSyntaxError(offset: start, reason: "invalid UTF-8 sequence in a string")
            }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        return (scalar, length)
    }

    /// Writes one character (or one surrogate half) as Python's `ensure_ascii` encoder.
    /// - Returns: the output position after it (at most 12 bytes on).
    static func writeEscaped(_ scalar: UInt32, to output: UnsafeMutablePointer<UInt8>, at out: Int) -> Int {
        if scalar >= 0x20 && scalar < 0x7F && scalar != UInt32(JSONByte.quote) && scalar != UInt32(JSONByte.backslash) {
            output[out] = UInt8(scalar)
            return out + 1
        }
        let short: UInt8? = switch scalar {
        case UInt32(JSONByte.quote): JSONByte.quote
        case UInt32(JSONByte.backslash): JSONByte.backslash
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        case 0x0A: UInt8(ascii: "n")
        case 0x0D: UInt8(ascii: "r")
        case 0x09: UInt8(ascii: "t")
        default: nil
        }
        if let short {
            output[out] = JSONByte.backslash
            output[out + 1] = short
            return out + 2
        }
        guard scalar >= 0x10000 else { return writeHexEscape(UInt16(scalar), to: output, at: out) }
        let offset = scalar - 0x10000
        let high = writeHexEscape(UInt16(0xD800 | offset >> 10), to: output, at: out)
        return writeHexEscape(UInt16(0xDC00 | offset & 0x3FF), to: output, at: high)
    }

    /// Writes `\u` and four lower-case hex digits.
    @inline(__always)
    static func writeHexEscape(_ unit: UInt16, to output: UnsafeMutablePointer<UInt8>, at out: Int) -> Int {
        output[out] = JSONByte.backslash
        output[out + 1] = UInt8(ascii: "u")
        output[out + 2] = JSONStringBytes.hexDigit(Int(unit >> 12))
        output[out + 3] = JSONStringBytes.hexDigit(Int(unit >> 8))
        output[out + 4] = JSONStringBytes.hexDigit(Int(unit >> 4))
        output[out + 5] = JSONStringBytes.hexDigit(Int(unit))
        return out + 6
    }

    /// Appends one character as `writeEscaped(_:to:at:)` writes it.
    static func appendEscaped(_ scalar: UInt32, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 12) { buffer in
            let length = writeEscaped(scalar, to: buffer.baseAddress!, at: 0)
            bytes.append(contentsOf: buffer[..<length])
        }
    }

    /// A key's text as UTF-8 with its escapes decoded (a lone surrogate as its three-byte
    /// form), so that byte order is code point order, as Python compares `str`.
    /// Kept beside `JSONStringBytes.decode`: a `String` cannot hold a lone surrogate.
    static func decodedKey(_ member: ApiDataMember, in input: UnsafePointer<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = member.keyStart
        var pendingHigh: UInt32?
        func append(_ scalar: UInt32) {
            if let high = pendingHigh {
                pendingHigh = nil
                if scalar >= 0xDC00 && scalar <= 0xDFFF {
                    appendUTF8(0x10000 + ((high - 0xD800) << 10) + (scalar - 0xDC00), to: &bytes)
                    return
                }
                appendUTF8(high, to: &bytes)
            }
            if scalar >= 0xD800 && scalar <= 0xDBFF { pendingHigh = scalar } else { appendUTF8(scalar, to: &bytes) }
        }
        while index < member.keyEnd {
            let byte = input[index]
            guard byte == JSONByte.backslash, index + 1 < member.keyEnd else {
                if let high = pendingHigh { appendUTF8(high, to: &bytes); pendingHigh = nil }
                bytes.append(byte)
                index += 1
                continue
            }
            let letter = input[index + 1]
            switch letter {
            case UInt8(ascii: "b"): append(0x08)
            case UInt8(ascii: "f"): append(0x0C)
            case UInt8(ascii: "n"): append(0x0A)
            case UInt8(ascii: "r"): append(0x0D)
            case UInt8(ascii: "t"): append(0x09)
            case UInt8(ascii: "u") where index + 6 <= member.keyEnd:
                var value: UInt32 = 0
                for offset in 2..<6 { value = value << 4 | UInt32(JSONStringBytes.hexValue(input[index + offset]) ?? 0) }
                append(value)
                index += 4
            default: append(UInt32(letter))
            }
            index += 2
        }
        if let high = pendingHigh { appendUTF8(high, to: &bytes) }
        return bytes
    }
}

/// Appends a code point as UTF-8 (a surrogate as its three-byte form).
private func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
    switch scalar {
    case ..<0x80: bytes.append(UInt8(scalar))
    case ..<0x800: bytes += [0xC0 | UInt8(scalar >> 6), 0x80 | UInt8(scalar & 0x3F)]
    case ..<0x10000:
        bytes += [0xE0 | UInt8(scalar >> 12), 0x80 | UInt8(scalar >> 6 & 0x3F), 0x80 | UInt8(scalar & 0x3F)]
    default:
        bytes += [0xF0 | UInt8(scalar >> 18), 0x80 | UInt8(scalar >> 12 & 0x3F),
                  0x80 | UInt8(scalar >> 6 & 0x3F), 0x80 | UInt8(scalar & 0x3F)]
    }
}
