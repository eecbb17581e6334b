import Foundation

extension CanonicalScanner {
    /// Reads a string at `position` (on its opening quote) and writes its canonical form.
    /// - Returns: where its contents, without the quotes, lie in `output`.
    mutating func readString() throws(JSONSyntaxError) -> Range<Int> {
        var cursor = position + 1
        var out = written
        output[out] = JSONByte.quote
        out += 1
        let contentsStart = out
        while true {
            // Most of a string is plain ASCII: copy it eight bytes at a time while no byte
            // in the word is a quote, a backslash, a control character or non-JSONByte.
            while cursor + 8 <= count {
                let word = UnsafeRawPointer(input + cursor).loadUnaligned(as: UInt64.self)
                guard !JSONStringBytes.needsAttention(word, orDelete: false) else { break }
                UnsafeMutableRawPointer(output + out).storeBytes(of: word, as: UInt64.self)
                cursor += 8
                out += 8
            }
            while cursor < count {
                let byte = input[cursor]
                guard byte >= 0x20, byte < 0x80, byte != JSONByte.quote, byte != JSONByte.backslash else { break }
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
                return contentsStart ..< out
            } else if byte == JSONByte.backslash {
                (cursor, out) = try readEscape(at: cursor, writingAt: out)
            } else if byte < 0x20 {
                throw JSONSyntaxError(offset: cursor, reason: "raw control character \(describe(byte)) in a string")
            } else {
                let length = try validateUTF8Sequence(at: cursor)
                (output + out).update(from: input + cursor, count: length)
                cursor += length
                out += length
            }
        }
    }

    /// Reads one escape sequence at `start` (on the backslash) and writes its canonical form.
    /// - Returns: the input and output positions after it.
    private mutating func readEscape(at start: Int, writingAt out: Int) throws(JSONSyntaxError) -> (Int, Int) {
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
            var scalar = try readHexQuad(at: start + 2)
            var next = start + 6
            if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw JSONSyntaxError(offset: start, reason: "lone low surrogate \\u\(String(scalar, radix: 16))")
            }
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                // A high surrogate must be followed at once by a `\u` low surrogate.
                let loneHigh = JSONSyntaxError(offset: start, reason: "lone high surrogate \\u\(String(scalar, radix: 16))")
                guard next < count else { throw .endOfInput(at: count) }
                guard input[next] == JSONByte.backslash else { throw loneHigh }
                guard next + 1 < count else { throw .endOfInput(at: count) }
                guard input[next + 1] == UInt8(ascii: "u") else { throw loneHigh }
                let low = try readHexQuad(at: next + 2)
                guard low >= 0xDC00 && low <= 0xDFFF else { throw loneHigh }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                next += 6
            }
            return (next, writeScalar(scalar, at: out))
        default:
            throw JSONSyntaxError(offset: start, reason: "invalid escape: \(describe(letter)) after a backslash")
        }
    }

    /// Reads four hex digits at `start`.
    private func readHexQuad(at start: Int) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for index in start ..< start + 4 {
            guard index < count else { throw .endOfInput(at: count) }
            let byte = input[index]
            guard let digit = JSONStringBytes.hexValue(byte) else {
                throw JSONSyntaxError(offset: index, reason: "invalid hex digit \(describe(byte)) in a \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Writes a code point from a `\u` escape in canonical form.
    /// - Returns: the output position after it.
    private func writeScalar(_ scalar: UInt32, at out: Int) -> Int {
        if scalar < 0x20 || scalar == UInt32(JSONByte.quote) || scalar == UInt32(JSONByte.backslash) {
            return CanonicalJSON.writeEscaped(UInt8(scalar), to: output + out) + out
        }
        if scalar < 0x80 {
            output[out] = UInt8(scalar)
            return out + 1
        }
        if scalar < 0x800 {
            output[out] = 0xC0 | UInt8(scalar >> 6)
            output[out + 1] = 0x80 | UInt8(scalar & 0x3F)
            return out + 2
        }
        if scalar < 0x10000 {
            output[out] = 0xE0 | UInt8(scalar >> 12)
            output[out + 1] = 0x80 | UInt8(scalar >> 6 & 0x3F)
            output[out + 2] = 0x80 | UInt8(scalar & 0x3F)
            return out + 3
        }
        output[out] = 0xF0 | UInt8(scalar >> 18)
        output[out + 1] = 0x80 | UInt8(scalar >> 12 & 0x3F)
        output[out + 2] = 0x80 | UInt8(scalar >> 6 & 0x3F)
        output[out + 3] = 0x80 | UInt8(scalar & 0x3F)
        return out + 4
    }

    /// Checks one multi-byte UTF-8 sequence at `start` (no overlong forms, no surrogates,
    /// nothing above U+10FFFF).
    /// - Returns: its length in bytes.
    private func validateUTF8Sequence(at start: Int) throws(JSONSyntaxError) -> Int {
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
        for index in start + 1 ..< start + length {
            guard index < count else { throw .endOfInput(at: count) }
            let byte = input[index]
            let allowed = index == start + 1 ? secondRange : 0x80...0xBF
            guard allowed.contains(byte) else {
                throw JSONSyntaxError(offset: start, reason: "invalid UTF-8 sequence in a string")
            }
        }
        return length
    }
}

extension CanonicalJSON {
    /// Writes a control character, `"` or `\` in its canonical escaped form.
    /// - Returns: how many bytes it wrote (2 or 6).
    static func writeEscaped(_ byte: UInt8, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let short: UInt8? = switch byte {
        case JSONByte.quote: JSONByte.quote
        case JSONByte.backslash: JSONByte.backslash
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        case JSONByte.newline: UInt8(ascii: "n")
        case JSONByte.carriageReturn: UInt8(ascii: "r")
        case JSONByte.tab: UInt8(ascii: "t")
        default: nil
        }
        out[0] = JSONByte.backslash
        if let short {
            out[1] = short
            return 2
        }
        out[1] = UInt8(ascii: "u")
        out[2] = JSONByte.zero
        out[3] = JSONByte.zero
        out[4] = JSONStringBytes.hexDigit(Int(byte >> 4))
        out[5] = JSONStringBytes.hexDigit(Int(byte))
        return 6
    }

    /// The canonical contents (between the quotes) of a JSON string holding `text`.
    package static func canonicalStringContents(_ text: String) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        var escape = [UInt8](repeating: 0, count: 6)
        for byte in text.utf8 {
            if byte < 0x20 || byte == JSONByte.quote || byte == JSONByte.backslash {
                let length = escape.withUnsafeMutableBufferPointer { writeEscaped(byte, to: $0.baseAddress!) }
                result.append(contentsOf: escape[..<length])
            } else {
                result.append(byte)
            }
        }
        return result
    }
}
