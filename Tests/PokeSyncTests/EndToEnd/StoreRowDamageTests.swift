import Foundation
import Testing

/// A store row whose hash is not 32 bytes (a flipped length, a hand edit) is damage to
/// report, exit 65 naming the row, never a crash of the process.
@Suite("Damaged store rows, end to end")
struct StoreRowDamageTests {
    @Test func shortDocumentHashIsReportedNotACrash() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            let store = cli.mirror.appendingPathComponent("store.sqlite").path
            _ = try await runTool("/usr/bin/env", ["sqlite3", store,
                                             "UPDATE version_documents SET hash = x'0011' WHERE kind = 'pokemon' AND id = 25"])
            for arguments in [["export", "--sprites", "none"],
                              ["export", "--format", "api-data", "--out", scratch.appendingPathComponent("api").path]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 65, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("version_documents") && result.stderr.contains("pokemon/25"), "\(result.stderr)")
            }
        }
    }

    @Test func shortSpriteHashIsReportedNotACrash() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            let store = cli.mirror.appendingPathComponent("store.sqlite").path
            _ = try await runTool("/usr/bin/env", ["sqlite3", store, """
                INSERT INTO version_sprites(version, path, url, hash) VALUES (1, 'pokemon/25.png', 'https://example.invalid/25.png', x'01')
                """])
            let result = try await cli.run(["export", "--sprites", "none"])
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("version_sprites") && result.stderr.contains("pokemon/25.png"), "\(result.stderr)")
        }
    }
}
