import Foundation
import PokeSQLite
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

/// A cancelled update returns within 100 ms in every phase, the blocking ones
/// included (a bundle copied from a folder, extraction, a delta applied, the digest
/// checked, the switch), and leaves the device as it was.
///
/// The sample data installs in a blink; version 2 here carries 300,000 padding pokedexes
/// (incompressible names, about 12 MB gzipped) so that each phase lasts long enough to be
/// cancelled inside, as the full data's do on a phone.
@Suite("Update cancellation latency", .serialized)
struct UpdateCancellationTests {
    struct HeavyWorld {
        var v1: UpdateFixtures.Version
        var bundles: URL
    }

    static func makeHeavyWorld(in root: URL) async throws -> HeavyWorld {
        let v1 = try await UpdateFixtures.makeVersion(1, from: TestPaths.sample2025, in: root)
        let v2 = try await UpdateFixtures.makeVersion(2, from: TestPaths.sample2026, in: root) { db in
            try db.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
                INSERT INTO pokedex(id, name, region, is_main_series)
                SELECT 100000 + i, 'padding-' || i || '-' || hex(randomblob(12)), NULL, 0 FROM n
                """)
        }
        let bundles = root.appendingPathComponent("b2", isDirectory: true)
        try FileManager.default.createDirectory(at: bundles, withIntermediateDirectories: true)
        let full = try await UpdateFixtures.writeFullBundle(v2, into: bundles)
        let delta = try await UpdateFixtures.writeDelta(from: v1, to: v2, into: bundles)
        try UpdateFixtures.writeIndex(bundles, full: full, deltas: [delta])
        return HeavyWorld(v1: v1, bundles: bundles)
    }

    /// `pokedex-update-bench`, built beside the tests.
    static let bench: URL = PokesyncCLI.binary.deletingLastPathComponent().appendingPathComponent("pokedex-update-bench")

    /// The measure runs in a process of its own (`pokedex-update-bench`), as in an app:
    /// here, other suites' blocking work on Swift's cooperative threads would delay the
    /// awaiting task's return by up to a second, which says nothing of the updater. The
    /// 100 ms target is `make bench`'s to hold (`bench_bundles.py`, on a quiet machine):
    /// beside the rest of the suite on two cores, a switch's fsync alone took 125 ms. Here
    /// each phase must end cancelled in the phase it was in (not run to its end), within a
    /// second.
    @Test("cancelled in each phase of a delta and of a first install, an update returns at once, the device unchanged")
    func everyPhase() async throws {
        try await withTemporaryDirectory { root in
            let world = try await Self.makeHeavyWorld(in: root)
            let base = root.appendingPathComponent("b1", isDirectory: true)
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
            try UpdateFixtures.writeIndex(base, full: try await UpdateFixtures.writeFullBundle(world.v1, into: base), deltas: [])
            let work = root.appendingPathComponent("work", isDirectory: true)
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            for (path, extra) in [("delta", [base.path]), ("full", [])] {
                let run = try await runProgram(Self.bench.path, [world.bundles.path, work.path] + extra)
                #expect(run.status == 0, "\(run.stderr)")
                let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
                print("\(path): \(run.text)")
                for phase in ["downloading", "extracting", "building", "switching"] {
                    let outcome = try #require(report[phase] as? [String: Any], "\(path) \(phase)")
                    let latency = try #require(outcome["latency_ms"] as? Double)
                    #expect(latency <= 1000, "\(path) \(phase): \(outcome)")
                    // Cancelled after the switch, the update is done: the one phase that may finish.
                    if phase == "switching", outcome["result"] as? String == "finished" { continue }
                    #expect(outcome["result"] as? String == "cancelled", "\(path) \(phase): \(outcome)")
                    #expect(outcome["landed_in"] as? String == phase, "\(path) \(phase): the phase ended first (\(outcome))")
                }
            }
            // Each device was removed after its run; what a cancelled update leaves is
            // checked below on one device kept whole.
        }
    }

    @Test("a cancelled delta leaves the device at its version, .tmp empty")
    func deviceUnchanged() async throws {
        try await withTemporaryDirectory { root in
            let world = try await Self.makeHeavyWorld(in: root)
            let base = root.appendingPathComponent("b1", isDirectory: true)
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
            try UpdateFixtures.writeIndex(base, full: try await UpdateFixtures.writeFullBundle(world.v1, into: base), deltas: [])
            for phase in ["downloading", "extracting", "building"] {
                let device = root.appendingPathComponent("device-\(phase)", isDirectory: true)
                _ = try await Updater(folder: device).update(from: base)
                let database = device.appendingPathComponent("current/pokedex.sqlite")
                let before = try UpdateFixtures.rows(database)
                let bundles = world.bundles
                let outcome = await CancellationProbe.runCancellingOnEntry(phase) { probe in
                    try await Updater(folder: device).update(from: bundles, progress: probe.saw)
                }
                #expect(outcome.result == "cancelled", "\(phase): \(outcome)")
                #expect(try UpdateFixtures.rows(database) == before)
                #expect(try FileManager.default.contentsOfDirectory(atPath: device.appendingPathComponent(".tmp").path).isEmpty)
            }
        }
    }
}
