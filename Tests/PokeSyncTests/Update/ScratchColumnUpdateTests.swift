import Foundation
import PokeSQLite
import PokedexReader
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
            let fixed = folder.appendingPathComponent("fixed-upstream")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: fixed)
            let pikachu = TestPaths.document(in: fixed, kind: "pokemon-species", id: 25)
            let original = try String(contentsOf: pikachu, encoding: .utf8)
            try #require(original.contains("\"hatch_counter\": 10"))
            try original.replacingOccurrences(of: "\"hatch_counter\": 10", with: "\"hatch_counter\": 20")
                .write(to: pikachu, atomically: true, encoding: .utf8)

            let v1 = try await Self.version(1, from: TestPaths.sample2026, in: folder)
            let v2 = try await Self.version(2, from: fixed, in: folder)
            let bundles = folder.appendingPathComponent("bundles", isDirectory: true)
            try FileManager.default.createDirectory(at: bundles, withIntermediateDirectories: true)
            let device = folder.appendingPathComponent("device", isDirectory: true)
            let updater = Updater(folder: device, tables: Self.extended)
            let installed = device.appendingPathComponent("current/pokedex.sqlite")

            // Version 1's full bundle: the shipped declaration's updater refuses it (its
            // digest does not cover the column); the extended one installs it.
            try UpdateFixtures.writeIndex(bundles, full: try await UpdateFixtures.writeFullBundle(v1, into: bundles), deltas: [])
            await #expect(throws: UpdateError.self) {
                _ = try await Updater(folder: folder.appendingPathComponent("plain-device")).update(from: bundles)
            }
            #expect(try await updater.update(from: bundles).kind == .full)
            #expect(try Self.hatchCounter(installed) == 10)

            // Version 2 as a delta from 1: it carries the column, and the device takes it.
            let changes = folder.appendingPathComponent("changes.sqlite")
            let summary = try DeltaBuilder(old: v1.database, new: v2.database, tables: Self.extended)
                .write(to: changes, oldSpriteHashes: try UpdateFixtures.spriteHashes(v1),
                       newSpriteHashes: try UpdateFixtures.spriteHashes(v2))
            #expect(summary.upserted[.species] == [25])
            let delta = try await UpdateFixtures.writeArchive(
                bundles.appendingPathComponent("pokedex-1-2.delta.tar.gz"),
                manifest: UpdateFixtures.manifest(for: v2, base: v1, removedSprites: summary.sprites.removed),
                files: ["changes.sqlite": changes])
            try UpdateFixtures.writeIndex(bundles, full: try await UpdateFixtures.writeFullBundle(v2, into: bundles), deltas: [delta])
            let update = try await updater.update(from: bundles)
            #expect(update.kind == .delta && update.installedVersion == 2)
            #expect(try Self.hatchCounter(installed) == 20)
            let database = try Database(path: installed.path, mode: .readOnly)
            #expect(try ContentDigest.compute(database, tables: Self.extended).hex == v2.digest)
        }
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
}
