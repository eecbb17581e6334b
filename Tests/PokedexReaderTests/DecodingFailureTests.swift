import Foundation
import Testing
@testable import PokedexReader

/// What a damaged `index.json` or manifest is called: one readable line naming the field,
/// never `DecodingError`'s debug dump, and never "not valid JSON" for valid JSON.
@Suite struct DecodingFailureTests {
    /// A well-formed index with one field replaced by `value` (raw JSON text).
    static func index(size value: String) -> Data {
        let digest = String(repeating: "ab", count: 32)
        return Data("""
            {"format": "pokesync-index", "format_version": 1, "schema_version": 2, "lineage": "l", "latest": 1,
             "profile": {"sprites": "none", "languages": "all"}, "deltas": [],
             "full": {"version": 1, "file": "pokedex-1.tar.gz", "size": \(value), "unpacked_size": 10, "sha256": "\(digest)"}}
            """.utf8)
    }

    func reason(_ data: Data) -> String? {
        do {
            _ = try BundleIndex(validating: data, source: "index.json")
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func eachKindOfDamageIsNamed() {
        #expect(reason(Self.index(size: "5")) == nil, "the undamaged index must pass, or the cases below test nothing")
        #expect(reason(Self.index(size: "5.5")) == "is not a pokesync index: a number is a fraction or too large for its field")
        #expect(reason(Self.index(size: "1e30")) == "is not a pokesync index: a number is a fraction or too large for its field")
        #expect(reason(Self.index(size: "\"x\"")) == "is not a pokesync index: the field full.size has an unexpected type")
        #expect(reason(Self.index(size: "null")) == "is not a pokesync index: the field full.size is null")
        #expect(reason(Data("{\"latest\": 2,".utf8)) == "is not a pokesync index: it is not JSON")
        let missing = Data(String(decoding: Self.index(size: "5"), as: UTF8.self)
            .replacingOccurrences(of: "\"lineage\": \"l\", ", with: "").utf8)
        #expect(reason(missing) == "is not a pokesync index: there is no field lineage")
    }
}
