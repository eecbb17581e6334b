import Foundation
import PokeSQLite
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

@Suite("Updater: installing and updating a device folder", .serialized)
struct UpdaterTests {
    /// v1 (2025 sample), v2 (2026 sample), v3 (v2 edited), and bundles folders:
    /// `b1` (full 1), `b2` (full 2 + delta 1-2), `b3` (full 3 + delta 2-3).
    struct World {
        var versions: [UpdateFixtures.Version]
        var root: URL
        func bundles(_ n: Int) -> URL { root.appendingPathComponent("b\(n)", isDirectory: true) }
        var device: URL { root.appendingPathComponent("device", isDirectory: true) }
    }

    static func makeWorld(in root: URL) async throws -> World {
        let versions = try await DeltaRoundTripTests.threeVersions(in: root)
        let world = World(versions: versions, root: root)
        for n in 1...3 {
            try FileManager.default.createDirectory(at: world.bundles(n), withIntermediateDirectories: true)
            let full = try await UpdateFixtures.writeFullBundle(versions[n - 1], into: world.bundles(n))
            let deltas = n > 1 ? [try await UpdateFixtures.writeDelta(from: versions[n - 2], to: versions[n - 1], into: world.bundles(n))] : []
            try UpdateFixtures.writeIndex(world.bundles(n), full: full, deltas: deltas)
        }
        return world
    }

    func currentRows(_ device: URL) throws -> [String: [String]] {
        try UpdateFixtures.rows(device.appendingPathComponent("current/pokedex.sqlite"))
    }

    @Test("an app's open Pokedex learns that an update moved current, and one line shows the new version")
    func openPokedexFollowsAnUpdate() async throws {
        try await withTemporaryDirectory { root in
            let world = try await Self.makeWorld(in: root)
            let updater = Updater(folder: world.device)
            _ = try await updater.update(from: world.bundles(1))
            var pokedex = try Pokedex(folder: world.device)
            #expect(try pokedex.metaValue("version") == "1")
            #expect(!pokedex.needsReopen)
            _ = try await updater.update(from: world.bundles(2))
            // The open one still reads version 1 (its folder is gone; the file stays open).
            #expect(pokedex.needsReopen)
            #expect(try pokedex.metaValue("version") == "1")
            if pokedex.needsReopen { pokedex = try pokedex.reopened() }
            #expect(try pokedex.metaValue("version") == "2")
            #expect(!pokedex.needsReopen)
            #expect(try await pokedex.read { try $0.pokemon(id: 10312) } != nil)
        }
    }

    @Test("a first install takes the full bundle, the next update the delta, then nothing")
    func fullThenDelta() async throws {
        try await withTemporaryDirectory { root in
            let world = try await Self.makeWorld(in: root)
            let updater = Updater(folder: world.device)
            let first = try await updater.update(from: world.bundles(1))
            #expect(first.kind == .full && first.installedVersion == 1 && first.fromVersion == nil)
            #expect(first.addedPokemon.contains(10263))
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: world.device.appendingPathComponent("current").path) == "versions/1")
            #expect(try currentRows(world.device) == UpdateFixtures.rows(world.versions[0].database))

            let second = try await updater.update(from: world.bundles(2))
            #expect(second.kind == .delta && second.installedVersion == 2 && second.fromVersion == 1)
            #expect(second.addedPokemon == [10312] && second.removedPokemon == [10263])
            #expect(try currentRows(world.device) == UpdateFixtures.rows(world.versions[1].database))
            let sprites = world.device.appendingPathComponent("current/sprites/pokemon")
            #expect(FileManager.default.fileExists(atPath: sprites.appendingPathComponent("10312.png").path))
            #expect(FileManager.default.fileExists(atPath: sprites.appendingPathComponent("25.png").path))
            #expect(!FileManager.default.fileExists(atPath: sprites.appendingPathComponent("10263.png").path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: world.device.appendingPathComponent("versions").path) == ["2"])

            let third = try await updater.update(from: world.bundles(3))
            #expect(third.kind == .delta && third.removedPokemon == [10312])
            // 2 -> 3 changes three entities: its delta is smaller than a full bundle.
            #expect(third.bytesDownloaded < first.bytesDownloaded)
            #expect(try currentRows(world.device) == UpdateFixtures.rows(world.versions[2].database))
            #expect(try await updater.update(from: world.bundles(3)).kind == .alreadyCurrent)
        }
    }

    @Test("a device of another lineage, or at a version with no delta, takes the full bundle")
    func otherLineageTakesFull() async throws {
        try await withTemporaryDirectory { root in
            let world = try await Self.makeWorld(in: root)
            let other = root.appendingPathComponent("other", isDirectory: true)
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            let foreign = try await UpdateFixtures.makeVersion(1, from: TestPaths.sample2025, in: other, lineage: "lineage-b")
            let full = try await UpdateFixtures.writeArchive(other.appendingPathComponent("pokedex-1.tar.gz"),
                                                       manifest: UpdateFixtures.manifest(for: foreign, base: nil, lineage: "lineage-b"),
                                                       files: ["pokedex.sqlite": foreign.database])
            try UpdateFixtures.writeIndex(other, full: full, deltas: [], lineage: "lineage-b")
            let updater = Updater(folder: world.device)
            _ = try await updater.update(from: other)
            let result = try await updater.update(from: world.bundles(2))
            #expect(result.kind == .full && result.installedVersion == 2)
            #expect(try currentRows(world.device) == UpdateFixtures.rows(world.versions[1].database))
            // At v2, b3's delta 2-3 applies; from v1, b3 has no delta: full.
            let device2 = root.appendingPathComponent("device2", isDirectory: true)
            _ = try await Updater(folder: device2).update(from: world.bundles(1))
            #expect(try await Updater(folder: device2).update(from: world.bundles(3)).kind == .full)
        }
    }

    /// Installs v1, then expects `update` from `bundles` to fail with `expected` and leave v1 in place.
    func expectRefused(_ world: World, from bundles: URL, allowDowngrade: Bool = false,
                       _ matches: (UpdateError) -> Bool) async throws {
        let updater = Updater(folder: world.device)
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: world.device.appendingPathComponent("current").path)) == nil {
            _ = try await updater.update(from: world.bundles(1))
        }
        let before = try currentRows(world.device)
        do {
            _ = try await updater.update(from: bundles, allowDowngrade: allowDowngrade)
            Issue.record("the update from \(bundles.lastPathComponent) was not refused")
        } catch let error as UpdateError {
            #expect(matches(error), "\(error)")
            #expect(!error.description.contains("\n"))
        }
        #expect(try currentRows(world.device) == before)
    }

    @Test("tampered, truncated and wrong-base downloads are refused and change nothing")
    func hostileDownloads() async throws {
        try await withTemporaryDirectory { root in
            let world = try await Self.makeWorld(in: root)
            let delta = world.bundles(2).appendingPathComponent("pokedex-1-2.delta.tar.gz")
            let original = try Data(contentsOf: delta)
            var tampered = original
            tampered[tampered.count / 2] ^= 0xFF
            try tampered.write(to: delta)
            try await expectRefused(world, from: world.bundles(2)) { if case .badBundle = $0 { true } else { false } }
            try original.prefix(original.count - 100).write(to: delta)
            try await expectRefused(world, from: world.bundles(2)) { if case .badBundle = $0 { true } else { false } }
            try (original + Data([0])).write(to: delta)
            try await expectRefused(world, from: world.bundles(2)) { if case .badBundle = $0 { true } else { false } }
            try original.write(to: delta)
            // Wrong base: b3's delta 2-3 offered to a device at 1 as if it were 1-3.
            let wrong = root.appendingPathComponent("wrong", isDirectory: true)
            try FileManager.default.createDirectory(at: wrong, withIntermediateDirectories: true)
            let index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: world.bundles(3).appendingPathComponent("index.json")))
            for file in index.files {
                try FileManager.default.copyItem(at: world.bundles(3).appendingPathComponent(file), to: wrong.appendingPathComponent(file))
            }
            var liar = index.deltas[0]
            liar.from = 1
            try UpdateFixtures.writeIndex(wrong, full: index.full, deltas: [liar])
            try await expectRefused(world, from: wrong) { if case .badBundle = $0 { true } else { false } }
            let tmp = world.device.appendingPathComponent(".tmp")
            _ = try await Updater(folder: world.device).update(from: world.bundles(1))  // tidies leftovers
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).isEmpty)
        }
    }

    @Test("a delta whose result misses its digest gives way to the full bundle")
    func badDeltaFallsBackToFull() async throws {
        try await withTemporaryDirectory { root in
            let world = try await Self.makeWorld(in: root)
            let bad = root.appendingPathComponent("bad", isDirectory: true)
            try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
            let full = try await UpdateFixtures.writeFullBundle(world.versions[1], into: bad)
            let delta = try await UpdateFixtures.writeDelta(from: world.versions[0], to: world.versions[1], into: bad,
                                                      digest: String(repeating: "ab", count: 32))
            try UpdateFixtures.writeIndex(bad, full: full, deltas: [delta])
            let updater = Updater(folder: world.device)
            _ = try await updater.update(from: world.bundles(1))
            let result = try await updater.update(from: bad)
            #expect(result.kind == .full && result.installedVersion == 2)
            #expect(try currentRows(world.device) == UpdateFixtures.rows(world.versions[1].database))
        }
    }

    @Test("downgrades, newer schemas and a held lock are refused")
    func refusals() async throws {
        try await withTemporaryDirectory { root in
            let world = try await Self.makeWorld(in: root)
            let updater = Updater(folder: world.device)
            _ = try await updater.update(from: world.bundles(2))
            let before = try currentRows(world.device)
            await #expect { try await updater.update(from: world.bundles(1)) } throws: { error in
                if case .downgradeRefused(_, 2, 1) = error as? UpdateError { true } else { false }
            }
            #expect(try currentRows(world.device) == before)
            #expect(try await updater.update(from: world.bundles(1), allowDowngrade: true).installedVersion == 1)

            let index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: world.bundles(3).appendingPathComponent("index.json")))
            try UpdateFixtures.writeIndex(world.bundles(3), full: index.full, deltas: index.deltas, schemaVersion: DeviceSchema.version + 1)
            await #expect { try await updater.update(from: world.bundles(3)) } throws: { error in
                guard case .newerSchema = error as? UpdateError else { return false }
                return error.localizedDescription.isEmpty || "\(error)".contains("app update")
            }

            let lock = open(world.device.appendingPathComponent(".install.lock").path, O_RDWR)
            #expect(flock(lock, LOCK_EX | LOCK_NB) == 0)
            defer { close(lock) }
            await #expect { try await updater.update(from: world.bundles(2)) } throws: { error in
                if case .locked = error as? UpdateError { true } else { false }
            }
        }
    }
}
