import Foundation
import Testing

/// The samples are reference-closed, so the real binary exports bundles from them, as
/// `make demo` does: the export's reference check passes for both, and what it writes is a
/// real tar.gz holding a device database with the samples' content.
@Suite("Bundles from the samples, end to end")
struct SampleBundleTests {
    @Test func bothSamplesExportBundles() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let bundles = cli.mirror.appendingPathComponent("bundles")
            for (version, sample) in [(1, TestPaths.sample2025), (2, TestPaths.sample2026)] {
                let crawl = try await cli.run([version == 1 ? "full" : "sync", "--source", sample.path, "--sprites", "none"])
                #expect(crawl.status == 0, "\(crawl.stderr)")
                let export = try await cli.run(["export", "--sprites", "none"])
                #expect(export.status == 0, "\(sample.lastPathComponent): \(export.stderr)")
                #expect(FileManager.default.fileExists(atPath: bundles.appendingPathComponent("pokedex-\(version).tar.gz").path))
                let index = try #require(try JSONSerialization.jsonObject(
                    with: Data(contentsOf: bundles.appendingPathComponent("index.json"))) as? [String: Any])
                #expect(index["latest"] as? Int == version)
                #expect((index["full"] as? [String: Any])?["file"] as? String == "pokedex-\(version).tar.gz")
            }

            // The 2026 bundle, unpacked by the system tar and read by the system sqlite3.
            let bundle = bundles.appendingPathComponent("pokedex-2.tar.gz").path
            let listing = try await runTool("/usr/bin/env", ["tar", "tzf", bundle]).split(separator: "\n")
            #expect(Set(listing) == ["manifest.json", "pokedex.sqlite"])
            let unpacked = scratch.appendingPathComponent("unpacked")
            try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
            _ = try await runTool("/usr/bin/env", ["tar", "xzf", bundle, "-C", unpacked.path])
            let database = unpacked.appendingPathComponent("pokedex.sqlite").path
            func query(_ sql: String) async throws -> String { try await runTool("/usr/bin/env", ["sqlite3", database, sql]) }
            // Tests/Fixtures/README.md: 17 pokemon, 37 species, 13 chains; eevee's eight evolutions.
            #expect(try await query("SELECT COUNT(*) FROM pokemon") == "17")
            #expect(try await query("SELECT COUNT(*) FROM species") == "37")
            #expect(try await query("SELECT COUNT(*) FROM evolution_chain") == "13")
            #expect(try await query("SELECT COUNT(*) FROM evolution_step WHERE chain_id = 67 AND from_species_id = 133") == "8")
            // Closed: no pokedex entry or evolution step names a species the database lacks.
            #expect(try await query("""
                SELECT COUNT(*) FROM pokedex_entry WHERE species_id NOT IN (SELECT id FROM species)
                """) == "0")
            #expect(try await query("""
                SELECT COUNT(*) FROM evolution_step WHERE to_species_id NOT IN (SELECT id FROM species)
                OR from_species_id NOT IN (SELECT id FROM species)
                """) == "0")
        }
    }
}
