import Foundation
import PokedexReader
import Testing

/// The folding's ASCII path (no Foundation normalization) against its general path, over
/// every name of both samples: pokemon, species in every language, types, moves, abilities,
/// versions, as a user would type them and as the builder stores them.
@Suite struct SearchFoldingTests {
    /// Every string under a `name` key, at any depth, of every document of `sample`.
    static func names(in sample: URL) throws -> Set<String> {
        var names = Set<String>()
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, child) in object {
                    if key == "name", let name = child as? String { names.insert(name) } else { collect(child) }
                }
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        let files = FileManager.default.enumerator(at: sample, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.lastPathComponent == "index.json" else { continue }
            collect(try JSONSerialization.jsonObject(with: Data(contentsOf: file)))
        }
        return names
    }

    @Test func theASCIIPathFoldsEveryNameAsTheGeneralPathDoes() throws {
        var names = try Self.names(in: TestPaths.sample2025).union(Self.names(in: TestPaths.sample2026))
        // What a user types: capitals, whitespace, digits and punctuation.
        names.formUnion(["Pikachu", "MR. MIME", "Type: Null", "Farfetch'd", "  porygon-Z 2 ", "Flabébé", "Straße", "ＡＢＣ"])
        let ascii = names.filter { $0.utf8.allSatisfy { $0 < 0x80 } }
        #expect(ascii.count > 500 && ascii.count < names.count, "\(ascii.count) of \(names.count) names are ASCII")
        for name in names {
            #expect(SearchFolding.fold(name) == SearchFolding.foldedByUnicode(name), "\(name)")
        }
        #expect(SearchFolding.fold("Mr. MIME") == "mr. mime" && SearchFolding.fold("Flabébé") == "flabebe")
    }
}
