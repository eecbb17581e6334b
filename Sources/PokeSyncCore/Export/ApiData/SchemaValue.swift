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
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(JSONStringBytes.hexDigit(Int(byte >> 4)))
                output.append(JSONStringBytes.hexDigit(Int(byte)))
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
