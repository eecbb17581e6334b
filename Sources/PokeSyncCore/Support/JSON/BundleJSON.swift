import Foundation

/// The JSON pokesync writes for people and devices: sorted keys, two-space indent,
/// slashes unescaped, a final newline: the same value gives the same bytes.
package enum BundleJSON {
    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        Array(try data(value)) + [UInt8(ascii: "\n")]
    }

    /// The same without the final newline (what `--json` outputs print); `pretty: false`
    /// gives one line. `.convertToSnakeCase` keys suit a core record's synthesized keys.
    package static func data(_ value: some Encodable, pretty: Bool = true,
                             keys: JSONEncoder.KeyEncodingStrategy = .useDefaultKeys) throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = keys
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
