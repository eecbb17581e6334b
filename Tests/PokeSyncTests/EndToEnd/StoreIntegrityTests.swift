import Foundation
import Testing
@testable import PokeSyncCore

/// What a run does with a store that is damaged, empty, or shared with another writer.
@Suite("Store integrity, end to end", .serialized)
struct StoreIntegrityTests {
    /// Flips a byte in the middle of pokemon/25's stored (compressed) body, as a bad disk would.
    static func damageStoredBody(_ mirror: URL) async throws {
        try await python("""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            h, b = db.execute("SELECT d.hash, d.body FROM documents d JOIN version_documents v ON v.hash = d.hash "
                              "WHERE v.kind = 'pokemon' AND v.id = 25 LIMIT 1").fetchone()
            b = bytearray(b); b[len(b) // 2] ^= 0xFF
            db.execute("UPDATE documents SET body = ? WHERE hash = ?", (bytes(b), h)); db.commit()
            """, mirror.appendingPathComponent("store.sqlite").path)
    }

    /// Flips a byte of a sprite in place, through the tree's hard link: its object is damaged too.
    static func damageSprite(_ file: URL) throws {
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count / 2] ^= 0xFF
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: bytes)
        try handle.close()
    }

    static func python(_ script: String, _ arguments: String...) async throws {
        try await runTool("python3", ["-c", script] + arguments)
    }

    @Test func damagedBodiesAndSpriteObjectsAreHealedByTheNextRun() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let arguments = ["--source", server.baseURL.absoluteString, "--sprite-source",
                                 server.spriteBaseURL.absoluteString, "--sprites", "default"]
                #expect(try await cli.run(["full"] + arguments).status == 0)
                let sprite = cli.mirror.appendingPathComponent("sprites/pokemon/25.png")
                let good = try Data(contentsOf: sprite)

                try await Self.damageStoredBody(cli.mirror)
                try Self.damageSprite(sprite)
                let damaged = try await cli.run(["verify", cli.mirror.path], addMirror: false)
                #expect(damaged.status == 65)
                #expect(damaged.stdout.contains("pokemon/25 of version 1") && damaged.stdout.contains("sprite pokemon/25.png"))

                // `full` fetches everything again: what it fetches replaces the damaged copies.
                let full = try await cli.run(["full"] + arguments)
                #expect(full.status == 0, "\(full.stderr)")
                let healed = try await cli.run(["verify", cli.mirror.path], addMirror: false)
                #expect(healed.status == 0, "\(healed.stdout)")
                #expect(try Data(contentsOf: sprite) == good)
                let out = scratch.appendingPathComponent("export")
                #expect(try await cli.run(["export", "--format", "api-data", "--out", out.path]).status == 0)
                try Samples.expectSameJSON(TestPaths.sample2026, out)

                // `sync` does not let a conditional request (304) stand for a damaged copy.
                try await Self.damageStoredBody(cli.mirror)
                try Self.damageSprite(sprite)
                let sync = try await cli.run(["sync", "--revalidate"] + arguments)
                #expect(sync.status == 0, "\(sync.stderr)")
                #expect(sync.stdout.contains("no changes since version 2"))
                let afterSync = try await cli.run(["verify", cli.mirror.path], addMirror: false)
                #expect(afterSync.status == 0, "\(afterSync.stdout)")
                #expect(try Data(contentsOf: sprite) == good)
            }
        }
    }

    @Test func anEmptyStoreIsCorruptNotAFreshStart() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            let diffs = cli.mirror.appendingPathComponent("diffs")
            let before = try FileManager.default.contentsOfDirectory(atPath: diffs.path).sorted()
            let diff = try Data(contentsOf: diffs.appendingPathComponent("1-2.json"))
            let storeFile = cli.mirror.appendingPathComponent("store.sqlite")
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storeFile.path + suffix) }
            try Data().write(to: storeFile)

            for command in [["full", "--source", TestPaths.sample2025.path, "--sprites", "none"],
                            ["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"], ["status"]] {
                let result = try await cli.run(command)
                #expect(result.status == 65, "\(command): \(result.stdout)\(result.stderr)")
                #expect(result.stderr.contains("store.sqlite") && result.stderr.contains("empty"))
                #expect(result.stderr.split(separator: "\n").count == 1)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: diffs.path).sorted() == before)
            #expect(try Data(contentsOf: diffs.appendingPathComponent("1-2.json")) == diff)
            #expect(try FileManager.default.attributesOfItem(atPath: storeFile.path)[.size] as? Int == 0)
        }
    }

    /// A copy of sample2026 whose `kind` list keeps only its first `keep` entries.
    static func shrunkenSource(_ scratch: URL, kind: String, keep: Int) throws -> URL {
        let source = scratch.appendingPathComponent("shrunk-\(kind)-\(keep)")
        try? FileManager.default.removeItem(at: source)
        try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
        let listFile = source.appendingPathComponent("api/v2/\(kind)/index.json")
        var list = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: listFile)) as? [String: Any])
        let results = try #require(list["results"] as? [[String: Any]])
        list["results"] = Array(results.prefix(keep))
        list["count"] = keep
        try JSONSerialization.data(withJSONObject: list).write(to: listFile)
        return source
    }

    @Test func shrunkenListsAreRefusedUnlessAllowed() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            let pokemon = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
                .documentCounts(version: 1)[.pokemon] ?? 0
            #expect(pokemon > 3)
            let shrunk = try Self.shrunkenSource(scratch, kind: "pokemon", keep: 2)

            let refused = try await cli.run(["sync", "--source", shrunk.path, "--sprites", "none"])
            #expect(refused.status == 65)
            let message = refused.stderr.split(separator: "\n").last.map(String.init) ?? ""
            #expect(message.contains("pokemon: 2 listed, \(pokemon) in version 1"), "\(refused.stderr)")
            #expect(message.contains("--allow-shrink"))
            #expect(!refused.stdout.contains("published"))
            #expect(try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true).versions().count == 1)

            #expect(try await cli.run(["sync", "--source", shrunk.path, "--sprites", "none"]).status == 65, "still shrunk: still refused")
            // Upstream recovers at the same address: the resumed run lists pokemon again
            // (not the shrunken list it kept) and publishes nothing new.
            try FileManager.default.removeItem(at: shrunk)
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: shrunk)
            let again = try await cli.run(["sync", "--source", shrunk.path, "--sprites", "none"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("no changes since version 1"))

            // A real loss, accepted with the flag (full takes it too).
            let small = try Self.shrunkenSource(scratch, kind: "pokemon", keep: 2)
            #expect(try await cli.run(["full", "--source", small.path, "--sprites", "none"]).status == 65)
            let accepted = try await cli.run(["full", "--source", small.path, "--sprites", "none", "--allow-shrink"])
            #expect(accepted.status == 0, "\(accepted.stderr)")
            #expect(accepted.stdout.contains("published version 2"))
            let store = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
            #expect(try store.documentCounts(version: 2)[.pokemon] == 2)

            for command in ["full", "sync"] {
                #expect(try await cli.run(["help", command], addMirror: false).stdout.contains("--allow-shrink"))
            }
        }
    }

    @Test func aSecondWriterWithTheLockFileDeletedNeverPublishesAnEmptyVersion() async throws {
        try await withTemporaryDirectory { scratch in
            var options = StandInOptions(root: TestPaths.sample2026)
            // Slow enough (70 documents x 300 ms, one at a time) that the first run is still
            // fetching when the second starts, even on a busy machine.
            options.latencyMilliseconds = 300
            try await withStandInServer(options) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let arguments = ["full", "--source", server.baseURL.absoluteString, "--sprites", "none", "--concurrency", "1"]
                let first = cli.start(arguments)
                try first.process.run()
                let lockFile = cli.mirror.appendingPathComponent(".pokesync.lock")
                let storeFile = cli.mirror.appendingPathComponent("store.sqlite")
                // Wait until the first run holds the lock and is fetching documents.
                for _ in 0..<800 {
                    if let pid = try? String(contentsOf: lockFile, encoding: .utf8), !pid.isEmpty,
                       FileManager.default.fileExists(atPath: storeFile.path) { break }
                    try await Task.sleep(for: .milliseconds(25))
                }
                try await Task.sleep(for: .milliseconds(600))
                try FileManager.default.removeItem(at: lockFile)
                let second = try await cli.run(arguments)
                await first.waitUntilExit()
                #expect(second.status == 75, "\(second.stderr)")
                #expect(first.result().status == 0, "\(first.result().stderr)")
                let versions = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true).versions()
                #expect(versions.map(\.number) == [1])
                let count = try Samples.documents(TestPaths.sample2026).count
                #expect(versions.allSatisfy { $0.documents == count })
            }
        }
    }

    @Test func aRunAnotherProcessTookOverIsNotPublished() throws {
        try withTemporaryDirectory { scratch in
            let layout = MirrorLayout(root: scratch.appendingPathComponent("Mirror"))
            let mine = try Store(layout: layout, create: true)
            let theirs = try Store(layout: layout, create: true)  // another connection, as another process
            let plan = RunPlan(mode: .full, source: "test", spriteSource: nil, spriteSet: "none", revalidate: false)
            let run = try mine.startRun(plan)
            try mine.claimRun(run.id, owner: "mine")
            try theirs.claimRun(run.id, owner: "theirs")
            let takenOver = StoreError.runTakenOver(mirror: layout.root.path, mode: .full)
            #expect(throws: takenOver) { try mine.publish(run: run, owner: "mine", skipIfUnchanged: false) }
            // The owner cannot publish a frontier that never listed every kind: it would be empty.
            let unlisted = #expect(throws: StoreError.self) { try theirs.publish(run: run, owner: "theirs", skipIfUnchanged: false) }
            #expect(unlisted?.code == .storeCorrupt)
            try theirs.discardRun(run.id)
            #expect(throws: takenOver) { try theirs.publish(run: run, owner: "theirs", skipIfUnchanged: false) }
            #expect(try mine.versions().isEmpty)
        }
    }
}
