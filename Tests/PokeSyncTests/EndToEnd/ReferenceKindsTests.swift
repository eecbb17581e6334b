import Foundation
import PokeSQLite
import Testing
@testable import PokeSyncCore

/// The six reference kinds (<doc:PokeSyncCore/Sources#Kinds>) come to a mirror made before they existed.
@Suite("Reference kinds, end to end")
struct ReferenceKindsTests {
    static let referenceKinds: [ResourceKind] = [.type, .ability, .move, .stat, .version, .language]

    /// A mirror whose version 1 holds only the four kinds (as one made before this
    /// release does) gets the reference kinds on its next `sync`, as added documents of
    /// an ordinary version 2, with nothing else changed.
    @Test func aMirrorMadeBeforeGetsThemOnItsNextSync() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            // Make version 1 what an older pokesync wrote: the four kinds only.
            do {
            let store = try Database(path: cli.mirror.appendingPathComponent("store.sqlite").path)
            let names = Self.referenceKinds.map { "'\($0.apiName)'" }.joined(separator: ", ")
            try store.execute("DELETE FROM version_documents WHERE kind IN (\(names))")
            try store.execute("DELETE FROM validators WHERE key GLOB '[a-z]*/*' AND substr(key, 1, instr(key, '/') - 1) IN (\(names))")
            try store.execute("UPDATE versions SET documents = (SELECT COUNT(*) FROM version_documents WHERE version = 1)")
            }

            let sync = try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stdout.contains("published version 2"))
            let diff = try await cli.run(["diff", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
            let summary = try #require(object["summary"] as? [String: [String: Int]])
            let documents = try Samples.documents(TestPaths.sample2026)
            for kind in ResourceKind.defaultKinds {
                let expected = Self.referenceKinds.contains(kind)
                    ? documents.keys.filter { $0.hasPrefix(kind.apiName + "/") }.count : 0
                #expect(summary[kind.apiName] == ["added": expected, "removed": 0, "changed": 0], "\(kind.apiName)")
            }
            #expect(Self.referenceKinds.allSatisfy { (summary[$0.apiName]?["added"] ?? 0) > 0 })
            // The new version is whole: verify passes and the api-data export equals the sample.
            #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)
            let tree = scratch.appendingPathComponent("tree")
            #expect(try await cli.run(["export", "--format", "api-data", "--out", tree.path]).status == 0)
            try Samples.expectSameJSON(TestPaths.sample2026, tree)
        }
    }
}
