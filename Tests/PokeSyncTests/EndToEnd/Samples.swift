import Foundation
import Testing

/// Reading the api-data samples (`TestPaths.sample2025`, `sample2026`) as JSON, to compare trees.
enum Samples {
    static let kinds = ["pokemon", "pokemon-species", "pokedex", "evolution-chain",
                        "type", "ability", "move", "stat", "version", "language"]

    /// Every document of an api-data tree, parsed: "kind/id" → JSON value.
    static func documents(_ root: URL) throws -> [String: NSObject] {
        var documents: [String: NSObject] = [:]
        for kind in kinds {
            let folder = root.appendingPathComponent("api/v2/\(kind)")
            for entry in try FileManager.default.contentsOfDirectory(atPath: folder.path) where Int(entry) != nil {
                let data = try Data(contentsOf: folder.appendingPathComponent("\(entry)/index.json"))
                documents["\(kind)/\(entry)"] = try JSONSerialization.jsonObject(with: data) as? NSObject
            }
        }
        return documents
    }

    static func list(_ root: URL, _ kind: String) throws -> NSObject? {
        let data = try Data(contentsOf: root.appendingPathComponent("api/v2/\(kind)/index.json"))
        return try JSONSerialization.jsonObject(with: data) as? NSObject
    }

    /// The two trees hold the same documents and lists, equal as JSON.
    static func expectSameJSON(_ expected: URL, _ actual: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let want = try documents(expected)
        let got = try documents(actual)
        #expect(Set(want.keys) == Set(got.keys), sourceLocation: sourceLocation)
        for (key, value) in want where got[key] != value {
            Issue.record("\(key) differs", sourceLocation: sourceLocation)
        }
        for kind in kinds {
            #expect(try list(expected, kind) == list(actual, kind), "\(kind) list", sourceLocation: sourceLocation)
        }
    }
}
