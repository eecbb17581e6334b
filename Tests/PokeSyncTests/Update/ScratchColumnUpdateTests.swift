import Foundation
import PokeSQLite
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

/// A column added to a copy of the declaration (`species.hatch_counter`, from the species
/// documents) and nothing else reaches a device the way a shipped column does: in a real
/// full bundle the updater installs (its digest covering the column), and in a real delta
/// that changes its value on the device. What the declaration alone cannot give is the
/// value: here the test reads it from the documents, where the exporter's converter would.
@Suite("A new column through install and delta")
struct ScratchColumnUpdateTests {
    static let column = DeviceSchema.Column.integer("hatch_counter")
    static let extended = DeviceSchema.tables.map { $0.name == DeviceSchema.Table.species.name ? $0.adding(column) : $0 }

    @Test func aColumnAddedToACopyOfTheDeclarationIsInstalledAndChangedByADelta() async throws {
        try await withTemporaryDirectory { folder in
            // Upstream changes pikachu's species document between the versions: its hatch counter.
            let fixed = try Self.upstream(changing: "\"hatch_counter\": 10", to: "\"hatch_counter\": 20",
                                          inPikachu: "pokemon-species", in: folder)

            let v1 = try await Self.version(1, from: TestPaths.sample2026, in: folder)
            let v2 = try await Self.version(2, from: fixed, in: folder)
            let installed = try await Self.ship(v1, then: v2, tables: Self.extended, in: folder) { bundles, installed in
                // The shipped declaration's updater refuses version 1 (its digest does not
                // cover the column); the extended one installs it.
                await #expect(throws: UpdateError.self) {
                    _ = try await Updater(folder: folder.appendingPathComponent("plain-device")).update(from: bundles)
                }
                let counter = try Self.hatchCounter(installed)
                #expect(counter == 10)
            } built: { _, summary in
                #expect(summary.upserted[.species] == [25])
            }
            #expect(try Self.hatchCounter(installed) == 20)
        }
    }

    /// A copy of the 2026 sample in `folder` whose pikachu document of `kind` has `old`,
    /// which it holds once, changed to `new`: the upstream of version 2.
    static func upstream(changing old: String, to new: String, inPikachu kind: String, in folder: URL) throws -> URL {
        let fixed = folder.appendingPathComponent("fixed-upstream")
        try FileManager.default.copyItem(at: TestPaths.sample2026, to: fixed)
        let pikachu = TestPaths.document(in: fixed, kind: kind, id: 25)
        let original = try String(contentsOf: pikachu, encoding: .utf8)
        try #require(original.components(separatedBy: old).count == 2)
        try original.replacingOccurrences(of: old, with: new).write(to: pikachu, atomically: true, encoding: .utf8)
        return fixed
    }

    /// Ships `v1` as a full bundle and installs it with an updater of `tables`, then calls
    /// `installed` (the bundles folder, the installed file); ships `v2` with a real delta
    /// from `v1` built for `tables`, calls `built` (its `changes.sqlite`, its summary) and
    /// updates: the device takes the delta and ends at `v2`'s digest. Returns the installed file.
    static func ship(_ v1: UpdateFixtures.Version, then v2: UpdateFixtures.Version, tables: [DeviceSchema.Table],
                     in folder: URL, installed: (URL, URL) async throws -> Void,
                     built: (URL, DeltaBuilder.Summary) throws -> Void) async throws -> URL {
        let bundles = folder.appendingPathComponent("bundles", isDirectory: true)
        try FileManager.default.createDirectory(at: bundles, withIntermediateDirectories: true)
        let device = folder.appendingPathComponent("device", isDirectory: true)
        let updater = Updater(folder: device, tables: tables)
        let file = device.appendingPathComponent("current/pokedex.sqlite")
        try UpdateFixtures.writeIndex(bundles, full: try await UpdateFixtures.writeFullBundle(v1, into: bundles), deltas: [])
        #expect(try await updater.update(from: bundles).kind == .full)
        try await installed(bundles, file)

        let changes = folder.appendingPathComponent("changes.sqlite")
        let summary = try DeltaBuilder(old: v1.database, new: v2.database, tables: tables)
            .write(to: changes, oldSpriteHashes: try UpdateFixtures.spriteHashes(v1),
                   newSpriteHashes: try UpdateFixtures.spriteHashes(v2))
        try built(changes, summary)
        let delta = try await UpdateFixtures.writeArchive(
            bundles.appendingPathComponent("pokedex-1-2.delta.tar.gz"),
            manifest: UpdateFixtures.manifest(for: v2, base: v1, removedSprites: summary.sprites.removed),
            files: ["changes.sqlite": changes])
        try UpdateFixtures.writeIndex(bundles, full: try await UpdateFixtures.writeFullBundle(v2, into: bundles), deltas: [delta])
        let update = try await updater.update(from: bundles)
        #expect(update.kind == .delta && update.installedVersion == 2)
        let database = try Database(path: file.path, mode: .readOnly)
        #expect(try ContentDigest.compute(database, tables: tables).hex == v2.digest)
        return file
    }

    /// Version `number` of the extended schema: the sample's device database with every
    /// species' `hatch_counter` from its document, and the digest over the extended tables.
    static func version(_ number: Int, from sample: URL, in folder: URL) async throws -> UpdateFixtures.Version {
        let plain = try await UpdateFixtures.makeVersion(number, from: sample, in: folder)
        let species = try Database(path: plain.database.path, mode: .readOnly).rows("SELECT id FROM species") { $0.int(0) }
        let counters = try species.map { id in
            let document = try JSONSerialization.jsonObject(with: Data(contentsOf: TestPaths.document(in: sample, kind: "pokemon-species", id: id)))
            return (id, (document as? [String: Any])?["hatch_counter"] as? Int)
        }
        return try DeviceSchemaDeclarationTests.extendedCopy(of: plain, as: "extended-\(number).sqlite", schema: extended) { database in
            for (id, value) in counters {
                try database.run("UPDATE species SET hatch_counter = ? WHERE id = ?", [SQLValue(value), SQLValue(id)])
            }
        }
    }

    static func hatchCounter(_ database: URL) throws -> Int? {
        try Database(path: database.path, mode: .readOnly).integer("SELECT hatch_counter FROM species WHERE id = 25")
    }

    /// The same for a view table: `pokemon_move.learn_level` (the highest level the
    /// pokemon learns the move at by level-up, from its document) added to a copy of the
    /// declaration is stored in the view's link table by the DDL made from it, given back
    /// by the view, installed from a full bundle and changed by a real delta, which the
    /// view's triggers apply, with no SQL written for the column.
    static let learnLevel = DeviceSchema.Column.integer("learn_level")
    static let withLearnLevel = DeviceSchema.tables.map {
        $0.name == DeviceSchema.Table.pokemonMove.name ? $0.adding(learnLevel) : $0
    }

    @Test func aPlainColumnAddedToAViewTableIsInstalledAndChangedByADelta() async throws {
        try await withTemporaryDirectory { folder in
            // Upstream changes pikachu's document between the versions: it learns double-kick at 12, not 9.
            let doubleKick = "\"name\": \"double-kick\",\n                \"url\": \"/api/v2/move/24/\"\n            },\n"
                + "            \"version_group_details\": [\n                {\n                    \"level_learned_at\": "
            let fixed = try Self.upstream(changing: doubleKick + "9,", to: doubleKick + "12,", inPikachu: "pokemon", in: folder)

            let v1 = try await Self.learnLevelVersion(1, from: TestPaths.sample2026, in: folder)
            let v2 = try await Self.learnLevelVersion(2, from: fixed, in: folder)
            var stored = 0
            let installed = try await Self.ship(v1, then: v2, tables: Self.withLearnLevel, in: folder) { _, installed in
                // The values are in the view's link table, and the view gives them back.
                let level = try Self.learnLevel(installed)
                #expect(level == 9)
                stored = try Self.storedLearnLevels(installed)
                #expect(stored > 0)
            } built: { changes, summary in
                #expect(summary.upserted[.pokemon] == [25])
                let carried = try Self.learnLevel(changes)
                #expect(carried == 12)
            }
            // The view's triggers applied the delta's plain SQL, the new column included.
            #expect(try Self.learnLevel(installed) == 12)
            #expect(try Self.storedLearnLevels(installed) == stored)
        }
    }

    /// Version `number` with `pokemon_move.learn_level`: the sample's device database with
    /// every pokemon's moves written again through the view with their level from the
    /// pokemon's document, and the digest over the extended tables.
    static func learnLevelVersion(_ number: Int, from sample: URL, in folder: URL) async throws -> UpdateFixtures.Version {
        let plain = try await UpdateFixtures.makeVersion(number, from: sample, in: folder)
        let moves = try Database(path: plain.database.path, mode: .readOnly)
            .rows("SELECT pokemon_id, move FROM pokemon_move ORDER BY pokemon_id, move") { ($0.int(0), $0.text(1)) }
        var levels: [Int: [String: Int]] = [:]
        for id in Set(moves.map(\.0)) {
            let document = try JSONSerialization.jsonObject(with: Data(contentsOf: TestPaths.document(in: sample, kind: "pokemon", id: id)))
            for entry in (document as? [String: Any])?["moves"] as? [[String: Any]] ?? [] {
                let name = (entry["move"] as? [String: Any])?["name"] as? String ?? ""
                let byLevelUp = (entry["version_group_details"] as? [[String: Any]] ?? []).filter {
                    ($0["move_learn_method"] as? [String: Any])?["name"] as? String == "level-up"
                }
                levels[id, default: [:]][name] = byLevelUp.compactMap { $0["level_learned_at"] as? Int }.max()
            }
        }
        return try DeviceSchemaDeclarationTests.extendedCopy(of: plain, as: "learn-level-\(number).sqlite", schema: withLearnLevel) { database in
            try database.execute("DELETE FROM pokemon_move")
            for (pokemon, move) in moves {
                try database.run("INSERT INTO pokemon_move(pokemon_id, move, learn_level) VALUES (?, ?, ?)",
                                 [SQLValue(pokemon), .text(move), SQLValue(levels[pokemon]?[move])])
            }
        }
    }

    static func learnLevel(_ database: URL) throws -> Int? {
        try Database(path: database.path, mode: .readOnly)
            .integer("SELECT learn_level FROM pokemon_move WHERE pokemon_id = 25 AND move = 'double-kick'")
    }

    static func storedLearnLevels(_ database: URL) throws -> Int {
        try Database(path: database.path, mode: .readOnly)
            .integer("SELECT count(*) FROM pokemon_move_link WHERE learn_level IS NOT NULL") ?? 0
    }
}
