import Foundation
import Testing

/// What Deployment's "Upgrading" says of a store and two releases: a release that only adds
/// columns and tables (the schema version unchanged) leaves a store an older release still
/// syncs, exports and verifies, since pokesync names every column it reads and writes; a
/// store of a newer schema version is refused at once (65) and left as it was.
@Suite("Upgrading: a store and an older release")
struct UpgradeTests {
    @Test func anOlderReleaseWorksOnAStoreANewerOneMigratedInPlace() async throws {
        try await withTemporaryDirectory { scratch in
            let upstream = scratch.appendingPathComponent("upstream")
            try FileManager.default.createSymbolicLink(at: upstream, withDestinationURL: TestPaths.sample2025)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try #require(try await cli.run(["full", "--source", upstream.path, "--sprites", "none"]).status == 0)
            // What a newer release's migration does: columns (with values) and a table of its own.
            let store = cli.mirror.appendingPathComponent("store.sqlite")
            try await runTool("sqlite3", [store.path, """
                ALTER TABLE runs ADD COLUMN newer_release TEXT;
                ALTER TABLE version_documents ADD COLUMN newer_release BLOB;
                UPDATE version_documents SET newer_release = x'01';
                CREATE TABLE newer_release_things(id INTEGER PRIMARY KEY, value TEXT);
                """])
            try FileManager.default.removeItem(at: upstream)
            try FileManager.default.createSymbolicLink(at: upstream, withDestinationURL: TestPaths.sample2026)
            let sync = try await cli.run(["sync"])
            #expect(sync.status == 0 && (sync.stdout + sync.stderr).contains("published version 2"), "\(sync.stdout)\(sync.stderr)")
            #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)
            let verify = try await cli.run(["verify", cli.mirror.path], addMirror: false)
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        }
    }

    @Test func aStoreOfANewerSchemaIsRefusedAndLeftAlone() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try #require(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            let store = cli.mirror.appendingPathComponent("store.sqlite")
            try await runTool("sqlite3", [store.path, "UPDATE meta SET value = '2' WHERE key = 'schema_version';"])
            let before = try Data(contentsOf: store)
            for words in [["sync", "--source", TestPaths.sample2026.path], ["status"], ["export"]] {
                let result = try await cli.run(words)
                #expect(result.status == 65, "\(words): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains("has schema 2, newer than this pokesync understands"), "\(result.stderr)")
            }
            #expect(try Data(contentsOf: store) == before)
        }
    }
}
