import Foundation
import PokedexReader
import PokedexUpdater
import PokeSQLite
import Testing
@testable import PokeSyncCore

/// The view tables (`species_flavor_text`, `pokemon_move`, `pokemon_sprite`) over the
/// builder's own tables: the plain-SQL delta must work through them unchanged.
@Suite("Device database: view tables and deltas")
struct DeviceDatabaseViewTests {
    /// Every logical row of the entity tables, as `quote()`d text.
    static func logicalRows(_ file: URL) throws -> [String: [String]] {
        let database = try Database(path: file.path, mode: .readOnly)
        var result: [String: [String]] = [:]
        for table in DeviceSchema.tables where table.entity != nil {
            let columns = table.columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
            let order = table.columns.map { "\"\($0)\"" }.joined(separator: ", ")
            result[table.name] = try database.rows("SELECT \(columns) FROM \"\(table.name)\" ORDER BY \(order)") { $0.text(0) }
        }
        return result
    }

    static func meta(_ file: URL) throws -> [String: String] {
        let database = try Database(path: file.path, mode: .readOnly)
        return Dictionary(uniqueKeysWithValues: try database.rows("SELECT key, value FROM meta") { ($0.text(0), $0.text(1)) })
    }

    @Test("a delta between two real builds, applied through the views, gives the new build row for row; no orphan texts")
    func deltaThroughViews() async throws {
        try await withTemporaryDirectory { folder in
            let old = try await DeviceDatabaseFixture(scratch: folder.appendingPathComponent("old"), source: TestPaths.sample2025)
            let new = try await DeviceDatabaseFixture(scratch: folder.appendingPathComponent("new"), source: TestPaths.sample2026)
            let (oldFile, _) = try old.build()
            let (newFile, newInfo) = try new.build()
            // Both mirrors call their only version 1: the manifest takes the new one's meta.
            let changes = folder.appendingPathComponent("changes.sqlite")
            let summary = try DeltaBuilder(old: oldFile, new: newFile).write(to: changes)
            #expect(!(summary.upserted[.species] ?? []).isEmpty, "the samples differ in species")

            let meta = try Self.meta(newFile)
            let profile = try JSONDecoder().decode(BundleProfile.self, from: Data(meta["profile"]!.utf8))
            let manifest = BundleManifest(format: BundleManifest.deltaFormat, lineage: meta["lineage"]!, version: Int(meta["version"]!)!,
                                          baseVersion: 1, createdAt: meta["created_at"]!, source: meta["source"]!,
                                          profile: profile, contentDigest: newInfo.contentDigest.hex, unpackedSize: 0,
                                          files: [], removedSprites: [])
            let applied = folder.appendingPathComponent("applied.sqlite")
            try DeltaApplier().apply(changes: changes, to: oldFile, writingTo: applied, manifest: manifest)

            let expected = try Self.logicalRows(newFile)
            let actual = try Self.logicalRows(applied)
            for table in DeviceSchema.tables where table.entity != nil {
                #expect(actual[table.name] == expected[table.name], "\(table.name)")
            }
            let database = try Database(path: applied.path, mode: .readOnly)
            // Texts are only shared within a species, and go with the last row using them.
            #expect(try database.integer("""
                SELECT count(*) FROM flavor_text_body t
                WHERE NOT EXISTS (SELECT 1 FROM species_flavor_link l WHERE l.text_id = t.id)
                """) == 0)
            #expect(try database.integer("""
                SELECT count(*) FROM species_flavor_link a JOIN species_flavor_link b
                ON a.text_id = b.text_id AND a.species_id <> b.species_id
                """) == 0)
            // One body per distinct text of a species, as the builder stores them.
            #expect(try database.integer("SELECT count(*) FROM flavor_text_body")
                    == database.integer("SELECT count(*) FROM (SELECT DISTINCT species_id, text FROM species_flavor_text)"))
            #expect(try database.row("PRAGMA integrity_check") { $0.text(0) } == "ok")
        }
    }

    @Test("the builder stores shared texts once and sprite URLs as patterns, and the views give them back")
    func sharedStorage() async throws {
        try await withTemporaryDirectory { folder in
            let fixture = try await DeviceDatabaseFixture(scratch: folder)
            let (file, _) = try fixture.build()
            let database = try Database(path: file.path, mode: .readOnly)
            let bodies = try database.integer("SELECT count(*) FROM flavor_text_body") ?? 0
            let rows = try database.integer("SELECT count(*) FROM species_flavor_text") ?? 0
            #expect(bodies > 0 && bodies < rows)
            // Most sprite URLs follow their key's pattern and are not stored.
            let stored = try database.integer("SELECT count(*) FROM pokemon_sprite_link WHERE url IS NOT NULL") ?? 0
            let sprites = try database.integer("SELECT count(*) FROM pokemon_sprite") ?? 0
            #expect(stored * 10 < sprites)
            // The view gives the document's URL back.
            let pikachu = try DeviceDatabaseFixture.json("pokemon", 25)
            let front = try #require((pikachu["sprites"] as? [String: Any])?["front_default"] as? String)
            #expect(try database.row("SELECT url FROM pokemon_sprite WHERE pokemon_id = 25 AND key = 'front_default'") {
                $0.text(0)
            } == front)

            // Through the triggers: a row added to a view comes back, and a text shared
            // by two rows of a species stays until the second row goes.
            let copy = folder.appendingPathComponent("copy.sqlite")
            try FileManager.default.copyItem(at: file, to: copy)
            let writable = try Database(path: copy.path)
            try writable.execute("""
                INSERT INTO species_flavor_text VALUES (25, 'xx', 'red', 0, 'A new text.'), (25, 'xx', 'blue', 1, 'A new text.');
                INSERT INTO pokemon_move VALUES (25, 'a-new-move');
                INSERT INTO pokemon_sprite VALUES (25, 'new/key', 'https://example.org/25.png', NULL);
                """)
            #expect(try writable.integer("SELECT count(*) FROM flavor_text_body WHERE text = 'A new text.'") == 1)
            #expect(try writable.integer("SELECT count(*) FROM pokemon_move WHERE pokemon_id = 25 AND move = 'a-new-move'") == 1)
            #expect(try writable.row("SELECT url FROM pokemon_sprite WHERE pokemon_id = 25 AND key = 'new/key'") {
                $0.text(0)
            } == "https://example.org/25.png")
            try writable.execute("DELETE FROM species_flavor_text WHERE species_id = 25 AND language = 'xx' AND version = 'red'")
            #expect(try writable.integer("SELECT count(*) FROM flavor_text_body WHERE text = 'A new text.'") == 1)
            try writable.execute("DELETE FROM species_flavor_text WHERE species_id = 25 AND language = 'xx'")
            #expect(try writable.integer("SELECT count(*) FROM flavor_text_body WHERE text = 'A new text.'") == 0)
            try writable.execute("DELETE FROM pokemon_move WHERE pokemon_id = 25; DELETE FROM pokemon_sprite WHERE pokemon_id = 25;")
            #expect(try writable.integer("SELECT count(*) FROM pokemon_move_link WHERE pokemon_id = 25") == 0)
            #expect(try writable.integer("SELECT count(*) FROM pokemon_sprite_link WHERE pokemon_id = 25") == 0)
        }
    }
}
