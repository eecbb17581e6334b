import Foundation
import PokeSQLite
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

@Suite("Deltas: changes.sqlite built and applied")
struct DeltaRoundTripTests {
    /// v1 = the 2025 sample, v2 = the 2026 sample, v3 = v2 with edits and a removal.
    static func threeVersions(in folder: URL) async throws -> [UpdateFixtures.Version] {
        let v1 = try await UpdateFixtures.makeVersion(1, from: TestPaths.sample2025, in: folder)
        let v2 = try await UpdateFixtures.makeVersion(2, from: TestPaths.sample2026, in: folder)
        let v3 = try await UpdateFixtures.makeVersion(3, from: TestPaths.sample2026, in: folder) { db in
            try db.execute("""
                UPDATE pokemon SET weight = weight + 1 WHERE id = 25;
                DELETE FROM pokemon_move WHERE pokemon_id = 789;
                DELETE FROM pokemon WHERE id = 10312; DELETE FROM pokemon_type WHERE pokemon_id = 10312;
                DELETE FROM pokemon_stat WHERE pokemon_id = 10312; DELETE FROM pokemon_ability WHERE pokemon_id = 10312;
                DELETE FROM pokemon_sprite WHERE pokemon_id = 10312;
                UPDATE species_flavor_text SET text = text || ' (edited)' WHERE species_id = 25 AND language = 'en';
                """)
            try FileManager.default.removeItem(at: folder.appendingPathComponent("v3/sprites/pokemon/10312.png"))
        }
        return [v1, v2, v3]
    }

    func applied(_ base: UpdateFixtures.Version, _ target: UpdateFixtures.Version, in folder: URL,
                 manifestDigest: String? = nil) throws -> (URL, DeltaBuilder.Summary) {
        let changes = folder.appendingPathComponent("changes-\(base.number)-\(target.number).sqlite")
        let summary = try DeltaBuilder(old: base.database, new: target.database)
            .write(to: changes, oldSpriteHashes: try UpdateFixtures.spriteHashes(base),
                   newSpriteHashes: try UpdateFixtures.spriteHashes(target))
        let output = folder.appendingPathComponent("applied-\(base.number)-\(target.number).sqlite")
        try DeltaApplier().apply(changes: changes, to: base.database, writingTo: output,
                                 manifest: UpdateFixtures.manifest(for: target, base: base, digest: manifestDigest))
        return (output, summary)
    }

    @Test("a delta applied to v1 gives v2 row for row, and names only what changed")
    func roundTrip() async throws {
        try await withTemporaryDirectory { folder in
            let versions = try await Self.threeVersions(in: folder)
            let (output, summary) = try applied(versions[0], versions[1], in: folder)
            #expect(try UpdateFixtures.rows(output) == UpdateFixtures.rows(versions[1].database))
            #expect(summary.removed[.pokemon]?.contains(10263) == true)
            #expect(summary.upserted[.pokemon]?.contains(10312) == true)
            #expect(summary.removed[.pokemon]?.contains(10312) == false)
            #expect(summary.upserted[.pokedex]?.contains(35) == true)
            #expect(summary.sprites.included.contains("sprites/pokemon/10312.png"))
            #expect(summary.sprites.removed == ["sprites/pokemon/10263.png"])
            #expect(!summary.sprites.included.contains("sprites/pokemon/25.png"))
            // The delta holds only what changed: fewer pokemon rows than v2 has.
            let changes = try Database(path: folder.appendingPathComponent("changes-1-2.sqlite").path, mode: .readOnly)
            let deltaPokemon = try changes.integer("SELECT count(*) FROM pokemon") ?? 0
            #expect(deltaPokemon == summary.upserted[.pokemon]?.count)
            #expect(try changes.row("PRAGMA journal_mode") { $0.text(0) } == "delete")
        }
    }

    @Test("a chain of three versions: v1 -> v2 -> v3 and v1 -> v3 both equal v3")
    func chainOfThree() async throws {
        try await withTemporaryDirectory { folder in
            let versions = try await Self.threeVersions(in: folder)
            let (at2, _) = try applied(versions[0], versions[1], in: folder)
            let v2Applied = UpdateFixtures.Version(number: 2, database: at2, spriteRoot: versions[1].spriteRoot,
                                                   digest: versions[1].digest, createdAt: versions[1].createdAt)
            let (at3, summary23) = try applied(v2Applied, versions[2], in: folder)
            #expect(try UpdateFixtures.rows(at3) == UpdateFixtures.rows(versions[2].database))
            #expect(summary23.upserted[.pokemon] == [25, 789])
            #expect(summary23.removed[.pokemon] == [25, 789, 10312])
            #expect(summary23.upserted[.species] == [25])
            #expect(summary23.upserted[.pokedex] == [])
            #expect(summary23.sprites.removed == ["sprites/pokemon/10312.png"])
            let (direct, _) = try applied(versions[0], versions[2], in: folder)
            #expect(try UpdateFixtures.rows(direct) == UpdateFixtures.rows(versions[2].database))
        }
    }

    @Test("the same two databases give a byte-identical changes.sqlite")
    func deterministic() async throws {
        try await withTemporaryDirectory { folder in
            let versions = try await Self.threeVersions(in: folder)
            let a = folder.appendingPathComponent("a.sqlite"), b = folder.appendingPathComponent("b.sqlite")
            try DeltaBuilder(old: versions[0].database, new: versions[1].database).write(to: a)
            try DeltaBuilder(old: versions[0].database, new: versions[1].database).write(to: b)
            #expect(try Data(contentsOf: a) == Data(contentsOf: b))
            let overwrite = #expect(throws: ExportError.self) { try DeltaBuilder(old: versions[0].database, new: versions[1].database).write(to: a) }
            #expect(overwrite?.code == .deltaBuild)
        }
    }

    @Test("a delta whose result misses the manifest's digest is refused and leaves nothing")
    func digestMismatch() async throws {
        try await withTemporaryDirectory { folder in
            let versions = try await Self.threeVersions(in: folder)
            let before = try Data(contentsOf: versions[0].database)
            #expect(throws: DeltaApplyError.self) {
                _ = try applied(versions[0], versions[1], in: folder, manifestDigest: String(repeating: "0", count: 64))
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("applied-1-2.sqlite").path))
            #expect(try Data(contentsOf: versions[0].database) == before)
            // Applied to the wrong base (v1 -> v3's delta on v2), the digest catches it too.
            let changes = folder.appendingPathComponent("changes-1-3.sqlite")
            try DeltaBuilder(old: versions[0].database, new: versions[2].database).write(to: changes)
            let output = folder.appendingPathComponent("wrong-base.sqlite")
            #expect(throws: DeltaApplyError.self) {
                try DeltaApplier().apply(changes: changes, to: versions[1].database, writingTo: output,
                                         manifest: UpdateFixtures.manifest(for: versions[2], base: versions[0]))
            }
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }
}
