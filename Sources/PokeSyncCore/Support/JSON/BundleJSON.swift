import Foundation

/// The JSON pokesync writes for people and devices: sorted keys, two-space indent,
/// slashes unescaped, a final newline: the same value gives the same bytes.
package enum BundleJSON {
    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value)) + [UInt8(ascii: "\n")]
    }
}
