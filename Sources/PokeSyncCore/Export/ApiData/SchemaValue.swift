/// A JSON schema as a value: what genson's `to_schema` returns and ditto writes.
///
/// Schemas hold only strings, arrays and objects (never numbers, booleans or null), so
/// this is all the JSON the schema side of the api-data export needs. Objects keep
/// their members in insertion order; equality follows Python's: objects compare as
/// dicts (order ignored), arrays in order, strings by code point. That equality is
/// what ditto's common-model replacement (`without_schema == model`) uses.
package indirect enum SchemaValue: Sendable, Equatable {
    /// A string: a type name, a key in `required`, a `$ref` or `$schema` URI.
    case string(String)
    /// An array, in order: `type` lists, `required`, `anyOf`.
    case array([SchemaValue])
    /// An object's members in insertion order, keys unique.
    case object([(String, SchemaValue)])

    package static func == (lhs: SchemaValue, rhs: SchemaValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(left), .string(right)):
            return left.utf8.elementsEqual(right.utf8)
        case let (.array(left), .array(right)):
            return left == right
        case let (.object(left), .object(right)):
            // Keys are unique within an object, so same size and every left member
            // found equal on the right is dict equality.
            guard left.count == right.count else { return false }
            return left.allSatisfy { key, value in
                right.contains { $0.0.utf8.elementsEqual(key.utf8) && $0.1 == value }
            }
        default:
            return false
        }
    }

    /// The member named `key` of an object, else nil.
    package subscript(key: String) -> SchemaValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0.utf8.elementsEqual(key.utf8) }?.1
    }

    /// Minified JSON, members in their stored order, non-ASCII as raw UTF-8 and only
    /// `"`, `\` and control characters escaped: a valid JSON text for the pretty-printer,
    /// which sorts the keys and writes upstream's exact bytes.
    package var jsonBytes: [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .string(let text):
            Self.writeString(text, to: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The text of a JSON string's contents as written between the quotes: escapes
    /// resolved (`\uXXXX` with surrogate pairs joined; a lone surrogate becomes U+FFFD),
    /// invalid UTF-8 repaired. Property names are decoded once, when first seen.
    static func decodeStringContents(_ raw: UnsafeBufferPointer<UInt8>) -> String {
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
                guard let digit = byte.hexDigitValue else { return nil }
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

private extension UInt8 {
    /// The value of an ASCII hex digit, else nil.
    var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return self - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
