import Foundation
import Testing
@testable import PokeSyncCore

/// `sync`, `diff` and `prune` across the real upstream change between the two samples.
@Suite("Sync, diff and prune, end to end")
struct SyncDiffPruneTests {
    /// The truth, computed here from the two samples' JSON: "kind/id" → change.
    static func expectedChanges() throws -> [String: String] {
        let old = try Samples.documents(TestPaths.sample2025)
        let new = try Samples.documents(TestPaths.sample2026)
        var truth: [String: String] = [:]
        for (key, value) in new { truth[key] = old[key] == nil ? "added" : (old[key] == value ? nil : "changed") }
        for key in old.keys where new[key] == nil { truth[key] = "removed" }
        return truth
    }

    @Test func syncPublishesExactlyTheUpstreamChanges() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            let sync = try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stdout.contains("published version 2"))

            let diff = try await cli.run(["diff", "--json"])
            #expect(diff.status == 0)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
            #expect(object["from"] as? Int == 1 && object["to"] as? Int == 2)
            let changes = try #require(object["changes"] as? [[String: Any]])
            var reported: [String: String] = [:]
            for change in changes {
                reported["\(change["kind"] as! String)/\(change["id"] as! Int)"] = change["change"] as? String
            }
            let truth = try Self.expectedChanges()
            #expect(reported == truth)
            #expect(truth.values.contains("added") && truth.values.contains("removed") && truth.values.contains("changed"))

            // Summary counts agree with the list, per kind.
            let summary = try #require(object["summary"] as? [String: [String: Int]])
            for kind in Samples.kinds {
                for change in ["added", "removed", "changed"] {
                    let counted = truth.filter { $0.key.hasPrefix(kind + "/") && $0.value == change }.count
                    #expect(summary[kind]?[change] == counted, "\(kind) \(change)")
                }
            }

            // Paths name the top-level members that really differ.
            let old = try Samples.documents(TestPaths.sample2025)
            let new = try Samples.documents(TestPaths.sample2026)
            for change in changes where change["change"] as? String == "changed" {
                let key = "\(change["kind"] as! String)/\(change["id"] as! Int)"
                let before = old[key] as! NSDictionary, after = new[key] as! NSDictionary
                let differing = Set((before.allKeys + after.allKeys).map { "\($0)" }.filter {
                    before[$0] as? NSObject != after[$0] as? NSObject })
                let paths = change["paths"] as! [String]
                #expect(Set(paths.map { String($0.split(separator: "/").first!) }) == differing, "\(key)")
            }

            // The publish wrote the same diff where the nightly job finds it.
            let written = cli.mirror.appendingPathComponent("diffs/1-2.json")
            #expect(FileManager.default.fileExists(atPath: written.path))

            let text = try await cli.run(["diff"])
            #expect(text.stdout.contains("version 1 → 2"))
            #expect(text.stdout.contains("pokemon "))
        }
    }

    @Test func noChangeSyncPublishesNothing() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            let sync = try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(sync.status == 0)
            #expect(sync.stdout.contains("no changes since version 1"))
            let versions = try await cli.run(["versions", "--json"])
            let list = try #require(try JSONSerialization.jsonObject(with: Data(versions.stdout.utf8)) as? [[String: Any]])
            #expect(list.count == 1)
        }
    }

    @Test func fullAgainPublishesTheNextVersionStoringNothingTwice() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            let store = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
            let stored = try store.read { try $0.integer("SELECT COUNT(*) FROM documents") }
            let again = try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(again.stdout.contains("published version 2"))
            #expect(try store.read { try $0.integer("SELECT COUNT(*) FROM documents") } == stored)
            #expect(try store.documents(version: 1) == store.documents(version: 2))
        }
    }

    @Test func pruneKeepsWhatRetainedVersionsNeed() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            // Going back to the older sample loses a pokedex of three (and more): a shrink to accept.
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none", "--allow-shrink"]).status == 0)
            // Exports of the versions that will be kept, before the prune.
            for version in [2, 3] {
                let out = scratch.appendingPathComponent("before-\(version)")
                #expect(try await cli.run(["export", "--format", "api-data", "--version", "\(version)", "--out", out.path]).status == 0)
            }
            let prune = try await cli.run(["prune", "--keep", "2"])
            #expect(prune.status == 0, "\(prune.stderr)")
            #expect(prune.stdout.contains("pruned versions 1"))
            let store = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
            #expect(try store.versions().map(\.number) == [2, 3])
            // Documents only version 1 had are gone; what 2 and 3 need is there.
            let orphans = try store.read { try $0.integer("""
                SELECT COUNT(*) FROM documents WHERE hash NOT IN (SELECT hash FROM version_documents)
                """) }
            #expect(orphans == 0)
            for version in [2, 3] {
                let out = scratch.appendingPathComponent("after-\(version)")
                #expect(try await cli.run(["export", "--format", "api-data", "--version", "\(version)", "--out", out.path]).status == 0)
                try expectIdenticalTrees(scratch.appendingPathComponent("before-\(version)"), out)
            }
            try Samples.expectSameJSON(TestPaths.sample2026, scratch.appendingPathComponent("after-2"))
            try Samples.expectSameJSON(TestPaths.sample2025, scratch.appendingPathComponent("after-3"))
            #expect(try await cli.run(["export", "--format", "api-data", "--version", "1", "--out", scratch.path + "/x"]).status == 64)
            // The store file is still a sound SQLite database.
            #expect(try await runTool("sqlite3", [cli.mirror.appendingPathComponent("store.sqlite").path, "PRAGMA integrity_check;"]) == "ok")
        }
    }
}

/// Byte-for-byte equal folders.
func expectIdenticalTrees(_ first: URL, _ second: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let files = { (root: URL) -> [String: Data] in
        var result: [String: Data] = [:]
        let walker = FileManager.default.enumerator(atPath: root.path)
        while let path = walker?.nextObject() as? String {
            let url = root.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                result[path] = FileManager.default.contents(atPath: url.path)
            }
        }
        return result
    }
    let a = files(first), b = files(second)
    #expect(Set(a.keys) == Set(b.keys), sourceLocation: sourceLocation)
    #expect(a == b, sourceLocation: sourceLocation)
}
