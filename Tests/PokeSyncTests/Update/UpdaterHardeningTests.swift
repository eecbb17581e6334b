import Foundation
import PokeSQLite
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

/// A red team's breaks of the updater, each kept: a device bricked by a same-version switch,
/// lying numbers, a delta's database that is code, hangs, a lock defeated, memory blown,
/// no fallback from a failed delta.
@Suite("Updater hardening", .serialized)
struct UpdaterHardeningTests {
    /// b2 rebuilt in another lineage at the same version 2: a same-version switch.
    static func otherLineage(_ world: UpdaterTests.World) async throws -> URL {
        let other = world.root.appendingPathComponent("b2-other", isDirectory: true)
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let version = try await UpdateFixtures.makeVersion(2, from: TestPaths.sample2026, in: other, lineage: "lineage-b")
        let full = try await UpdateFixtures.writeArchive(other.appendingPathComponent("pokedex-2.tar.gz"),
                                                   manifest: UpdateFixtures.manifest(for: version, base: nil, lineage: "lineage-b"),
                                                   files: ["pokedex.sqlite": version.database])
        try UpdateFixtures.writeIndex(other, full: full, deltas: [], lineage: "lineage-b")
        return other
    }

    func lineage(_ device: URL) throws -> String? {
        let db = try Database(path: device.appendingPathComponent("current/pokedex.sqlite").path, mode: .immutable)
        return try db.row("SELECT value FROM meta WHERE key = 'lineage'") { $0.text(0) }
    }

    @Test("1. a same-version switch of lineage never removes what current names; readers always open")
    func sameVersionSwitchKeepsCurrent() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let other = try await Self.otherLineage(world)
            let updater = Updater(folder: world.device)
            _ = try await updater.update(from: world.bundles(2))
            // A reader polls the device the whole time the switches run.
            let stop = NSLock(), failures = NSLock()
            nonisolated(unsafe) var stopped = false, failed = 0, opened = 0
            let poller = Thread {
                while !stop.withLock({ stopped }) {
                    do {
                        let pokedex = try Pokedex(folder: world.device)
                        _ = try pokedex.pokemon(id: 25)
                        failures.withLock { opened += 1 }
                    } catch { failures.withLock { failed += 1 } }
                }
            }
            poller.start()
            for round in 0..<6 {
                let result = try await updater.update(from: round % 2 == 0 ? other : world.bundles(2))
                #expect(result.installedVersion == 2 && result.kind == .full)
                #expect(try lineage(world.device) == (round % 2 == 0 ? "lineage-b" : "lineage-a"))
            }
            stop.withLock { stopped = true }
            while !poller.isFinished { usleep(1_000) }
            #expect(failures.withLock { failed } == 0, "a reader failed to open \(failed) times of \(opened)")
            let versions = try FileManager.default.contentsOfDirectory(atPath: world.device.appendingPathComponent("versions").path)
            #expect(versions.count == 1)
        }
    }

    @Test("1. killed at every rename of a same-version switch, the device still opens and the rerun finishes")
    func sameVersionSwitchKilledAtEachRename() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let other = try await Self.otherLineage(world)
            let cli = PokesyncCLI(mirror: root)
            let strace = "/usr/bin/strace"
            try #require(FileManager.default.isExecutableFile(atPath: strace))
            for when in 1...4 {
                let device = root.appendingPathComponent("device-\(when)", isDirectory: true)
                #expect(try await cli.run(["install", device.path, "--from", world.bundles(2).path], addMirror: false).status == 0)
                let traced = try await runProgram(strace, ["-f", "-o", "/dev/null", "-e",
                                                     "inject=rename,renameat,renameat2:signal=KILL:when=\(when)",
                                                     PokesyncCLI.binary.path, "install", device.path, "--from", other.path])
                _ = traced
                let opened = try Pokedex(folder: device)
                #expect(try opened.pokemon(id: 25) != nil, "kill at rename \(when)")
                let again = try await cli.run(["install", device.path, "--from", other.path], addMirror: false)
                #expect(again.status == 0, "\(again.stderr)")
                #expect(try lineage(device) == "lineage-b")
            }
        }
    }

    @Test("2. numbers and names an index lies with are 65, never a crash")
    func lyingIndexNumbers() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let cli = PokesyncCLI(mirror: root)
            let edits: [(String, (inout [String: Any]) -> Void)] = [
                ("size 2^63-1", { index in var full = index["full"] as! [String: Any]; full["size"] = Int.max; index["full"] = full }),
                ("negative size", { index in var full = index["full"] as! [String: Any]; full["size"] = -5; index["full"] = full }),
                ("unpacked 2^63-1", { index in var full = index["full"] as! [String: Any]; full["unpacked_size"] = Int.max; index["full"] = full }),
                ("negative version", { index in
                    var full = index["full"] as! [String: Any]; full["version"] = -2; index["full"] = full; index["latest"] = -2 }),
                ("300-char name", { index in var full = index["full"] as! [String: Any]; full["file"] = String(repeating: "a", count: 300); index["full"] = full }),
                ("empty name", { index in var full = index["full"] as! [String: Any]; full["file"] = ""; index["full"] = full }),
                ("dot-dot name", { index in var full = index["full"] as! [String: Any]; full["file"] = "../b1/pokedex-1.tar.gz"; index["full"] = full }),
                ("format_version 0", { index in index["format_version"] = 0 }),
                ("schema_version -1", { index in index["schema_version"] = -1 }),
            ]
            for (name, edit) in edits {
                let lying = root.appendingPathComponent("lying", isDirectory: true)
                try Hardening.lyingCopy(of: world.bundles(1), to: lying, edit)
                let device = root.appendingPathComponent("device-\(name.hashValue)")
                let run = try await Hardening.run(cli, ["install", device.path, "--from", lying.path])
                #expect(run.result.status == 65, "\(name): \(run.result.status) \(run.result.stderr)")
                let verify = try await cli.run(["verify", lying.path], addMirror: false)
                #expect(verify.status == 65, "verify, \(name): \(verify.status) \(verify.stderr)")
            }
            // A file shorter than the index says is named with both sizes, in one clean line.
            var real = 0
            let longer = root.appendingPathComponent("longer", isDirectory: true)
            try Hardening.lyingCopy(of: world.bundles(1), to: longer) { index in
                var full = index["full"] as! [String: Any]
                real = full["size"] as! Int
                full["size"] = real + 1000
                index["full"] = full
            }
            let run = try await Hardening.run(cli, ["install", root.appendingPathComponent("device-longer").path, "--from", longer.path])
            #expect(run.result.status == 65 && run.result.stderr.contains(" is \(real) bytes, not the index's \(real + 1000)"),
                    "\(run.result.stderr)")
        }
    }

    @Test("3. a delta whose changes.sqlite holds a view is refused before anything reads it, by install and verify")
    func recursiveViewDelta() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let hostile = root.appendingPathComponent("hostile", isDirectory: true)
            try await Hardening.recursiveViewDelta(world, in: hostile)
            let cli = PokesyncCLI(mirror: root)
            #expect(try await cli.run(["install", world.device.path, "--from", world.bundles(1).path], addMirror: false).status == 0)
            let run = try await Hardening.run(cli, ["install", world.device.path, "--from", hostile.path], limit: 60)
            #expect(!run.killed, "install still ran after 60 s")
            #expect(run.result.status == 65 && run.result.stderr.contains("view pokemon_move"), "\(run.result.stderr)")
            let verify = try await Hardening.run(cli, ["verify", hostile.appendingPathComponent("pokedex-1-2.delta.tar.gz").path], limit: 60)
            #expect(!verify.killed && verify.result.status == 65, "\(verify.result.stderr)")
            #expect(ChangesSchema.problem(at: world.versions[0].database) != nil, "a device database is not a delta")
        }
    }

    @Test("4. a trickling server ends as a timeout naming the URL (69)")
    func trickleTimesOut() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let server = try BundleServer.start(serving: world.bundles(2))
            defer { server.stop() }
            try server.setRules(["/index.json": ["trickle": true]])
            let cli = PokesyncCLI(mirror: root)
            let run = try await Hardening.run(cli, ["install", world.device.path, "--from", server.indexURL.absoluteString, "--timeout", "3"],
                                        limit: 60)
            #expect(!run.killed)
            #expect(run.result.status == 69 && run.result.stderr.contains("timed out")
                    && run.result.stderr.contains(server.indexURL.absoluteString) && !run.result.stderr.contains("-1001"),
                    "\(run.result.stderr)")
        }
    }

    /// Its 100 ms is measured where nothing else runs (`make bench`, `pokedex-update-bench`;
    /// `UpdateCancellationTests` runs it in a process of its own): here, other suites' blocking work holds Swift's cooperative threads and
    /// delays the awaiting task's return by tens of seconds in a full run, which says nothing
    /// of the updater. The bound kept is one an ignored cancel cannot meet: the trickle
    /// (20 bytes every 2 s) would hold this update for far longer than a minute.
    @Test("4. a cancelled update stops while it reads the index or downloads, and leaves the device as it was",
          arguments: [("readingIndex", 0), ("downloading", 20), ("downloading", 300)])
    func cancellation(phase: String, afterMilliseconds delay: Int) async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let updater = Updater(folder: world.device)
            _ = try await updater.update(from: world.bundles(1))
            let before = try UpdateFixtures.rows(world.device.appendingPathComponent("current/pokedex.sqlite"))
            let server = try BundleServer.start(serving: world.bundles(2))
            defer { server.stop() }
            // The delta and the full bundle trickle: only a cancellation ends this update soon.
            try server.setRules(["/pokedex-1-2.delta.tar.gz": ["trickle": true], "/pokedex-2.tar.gz": ["trickle": true]])
            let (device, index) = (world.device, server.indexURL)
            let outcome = await CancellationProbe.run(cancelling: phase, after: .milliseconds(delay)) { probe in
                try await Updater(folder: device, settings: UpdaterSettings(timeout: 600)).update(from: index, progress: probe.saw)
            }
            #expect(outcome.result == "cancelled", "\(outcome)")
            #expect(outcome.latency <= .seconds(60), "\(outcome)")
            #expect(try UpdateFixtures.rows(world.device.appendingPathComponent("current/pokedex.sqlite")) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: world.device.appendingPathComponent(".tmp").path).isEmpty)
        }
    }

    @Test("7. .install.lock as a link is 64; the lock is on the folder, so deleting the file lets no second install in")
    func lockHolds() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let updater = Updater(folder: world.device)
            _ = try await updater.update(from: world.bundles(1))
            let lockFile = world.device.appendingPathComponent(".install.lock")
            let outside = root.appendingPathComponent("outside.lock")
            try FileManager.default.removeItem(at: lockFile)
            try FileManager.default.createSymbolicLink(at: lockFile, withDestinationURL: outside)
            await #expect { try await updater.update(from: world.bundles(2)) } throws: { error in
                if case .notADeviceFolder = error as? UpdateError { true } else { false }
            }
            #expect(!FileManager.default.fileExists(atPath: outside.path))
            try FileManager.default.removeItem(at: lockFile)
            // Another install holds the folder (its lock file since deleted): refused.
            let folder = open(world.device.path, O_RDONLY | O_DIRECTORY)
            #expect(flock(folder, LOCK_EX | LOCK_NB) == 0)
            defer { close(folder) }
            await #expect { try await updater.update(from: world.bundles(2)) } throws: { error in
                if case .locked = error as? UpdateError { true } else { false }
            }
        }
    }

    @Test("8. a gzip-encoded delta (1 GiB decoded) is refused without blowing memory; the full bundle installs")
    func gzipBombRefused() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let cli = PokesyncCLI(mirror: root)
            #expect(try await cli.run(["install", world.device.path, "--from", world.bundles(1).path], addMirror: false).status == 0)
            let server = try BundleServer.start(serving: world.bundles(2))
            defer { server.stop() }
            try server.setRules(["/pokedex-1-2.delta.tar.gz": ["gzip_bomb": 1 << 30]])
            let run = try await Hardening.run(cli, ["install", world.device.path, "--from", server.indexURL.absoluteString], limit: 120)
            #expect(run.result.status == 0 && run.result.stdout.hasPrefix("installed version 2 (full bundle"), "\(run.result.stderr)")
            #expect(run.peakKB < 200_000, "peak RSS \(run.peakKB) kB")
        }
    }

    @Test("9. a delta answering 404 or 500, or cut short, gives way to the full bundle", arguments: ["404", "500", "cut"])
    func failedDeltaFallsBack(_ how: String) async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let updater = Updater(folder: world.device)
            _ = try await updater.update(from: world.bundles(1))
            let server = try BundleServer.start(serving: world.bundles(2))
            defer { server.stop() }
            let rule: [String: Any] = how == "cut" ? ["cut": 100] : ["status": Int(how)!]
            try server.setRules(["/pokedex-1-2.delta.tar.gz": rule])
            let result = try await updater.update(from: server.indexURL)
            #expect(result.kind == .full && result.installedVersion == 2)
            #expect(try UpdateFixtures.rows(world.device.appendingPathComponent("current/pokedex.sqlite"))
                    == UpdateFixtures.rows(world.versions[1].database))
        }
    }

    @Test("the index is asked for with its ETag: a 304 is already current")
    func conditionalIndex() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let server = try BundleServer.start(serving: world.bundles(2))
            defer { server.stop() }
            let updater = Updater(folder: world.device)
            #expect(try await updater.update(from: server.indexURL).kind == .full)
            #expect(FileManager.default.fileExists(atPath: world.device.appendingPathComponent(".index-etag").path))
            let again = try await updater.update(from: server.indexURL)
            #expect(again.kind == .alreadyCurrent && again.installedVersion == 2)
            let indexRequests = server.requests().filter { $0.path == "/index.json" }
            #expect(indexRequests.count == 2 && indexRequests[0].ifNoneMatch.isEmpty && !indexRequests[1].ifNoneMatch.isEmpty)
            #expect(server.requests().count == 3, "the second check is the one conditional request: \(server.requests())")
        }
    }

    @Test("redirects: another port refused clearly, file: named as such")
    func redirects() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let server = try BundleServer.start(serving: world.bundles(2))
            defer { server.stop() }
            let elsewhere = try BundleServer.start(serving: world.bundles(2))
            defer { elsewhere.stop() }
            let cli = PokesyncCLI(mirror: root)
            try server.setRules(["/index.json": ["redirect": elsewhere.indexURL.absoluteString]])
            let port = try await Hardening.run(cli, ["install", world.device.path, "--from", server.indexURL.absoluteString])
            #expect(port.result.status == 69 && port.result.stderr.contains("another port ("), "\(port.result.stderr)")
            #expect(elsewhere.requests().isEmpty)
            try server.setRules(["/index.json": ["redirect": "file:///etc/passwd"]])
            let file = try await Hardening.run(cli, ["install", world.device.path, "--from", server.indexURL.absoluteString])
            #expect(file.result.status == 69 && file.result.stderr.contains("file:") && !file.result.stderr.contains("status 404"),
                    "\(file.result.stderr)")
        }
    }

    @Test("a failed install leaves DIR/.tmp empty; delta and digest errors map to 65")
    func tidyAndExitCodes() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let updater = Updater(folder: world.device)
            _ = try await updater.update(from: world.bundles(1))
            let delta = world.bundles(2).appendingPathComponent("pokedex-1-2.delta.tar.gz")
            var data = try Data(contentsOf: delta)
            data[data.count / 2] ^= 0xFF
            try data.write(to: delta)
            await #expect(throws: UpdateError.self) { try await updater.update(from: world.bundles(2)) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: world.device.appendingPathComponent(".tmp").path).isEmpty)
            #expect(DeltaApplyError.invalidChanges(path: "x", reason: "y").exitStatus == .dataError)
            #expect(DeltaApplyError.digestMismatch(path: "x", expected: "a", actual: "b").exitStatus == .dataError)
            #expect(BundleCheckError(file: "f", reason: "r").exitStatus == .dataError)
        }
    }
}
