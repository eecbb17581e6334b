import Foundation
import PokedexReader
import Testing

@Suite("pokesync install: killed at any moment, the device still opens", .serialized)
struct InstallKillTests {
    func integrity(_ device: URL) async throws -> String {
        try await runProgram("sqlite3", [device.appendingPathComponent("current/pokedex.sqlite").path,
                                   "PRAGMA integrity_check; SELECT value FROM meta WHERE key = 'version';"]).text
    }

    @Test("SIGKILL at random moments of 24 installs, then a clean run: always opens, ends at the new version")
    func killedInstalls() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let cli = PokesyncCLI(mirror: root)
            var random = SeededRandom(seed: 20_260_808)
            var killed = 0
            // The kill lands within the time an uninterrupted install of the same kind takes
            // on this machine now (a fixed window missed most installs once they got faster).
            var window: [Int: UInt64] = [:]
            for start in 0..<3 {
                let device = root.appendingPathComponent("calibrate-\(start)", isDirectory: true)
                if start > 0 { _ = try await cli.run(["install", device.path, "--from", world.bundles(start).path], addMirror: false) }
                // Timed with a blocking wait (a short install): an awaited exit resumes when the
                // test pool has a thread free, which would stretch the window past the install.
                let calibration = cli.start(["install", device.path, "--from", world.bundles(start == 1 ? 2 : 3).path], addMirror: false)
                let began = Date()
                try calibration.process.run()
                calibration.process.waitUntilExit()
                window[start] = max(20_000, UInt64(Date().timeIntervalSince(began) * 900_000))  // 90%, in microseconds
            }
            for round in 0..<24 {
                let device = root.appendingPathComponent("device-\(round)", isDirectory: true)
                // Vary the starting point: empty (full bundle), at 1 (delta 1-2), at 2 (delta 2-3).
                let start = round % 3, target = start == 1 ? 2 : 3
                if start > 0 {
                    let setup = try await cli.run(["install", device.path, "--from", world.bundles(start).path], addMirror: false)
                    #expect(setup.status == 0, "\(setup.stderr)")
                }
                let child = cli.start(["install", device.path, "--from", world.bundles(target).path], addMirror: false)
                try child.process.run()
                usleep(UInt32(random.next() % window[start]!))
                if child.process.isRunning {
                    kill(child.process.processIdentifier, SIGKILL)
                    killed += 1
                } else {
                    // Done before the kill: the machine got quicker than when calibrated (other
                    // work on the two cores ended), so the window narrows to keep landing kills.
                    window[start] = max(20_000, window[start]! * 3 / 4)
                }
                child.process.waitUntilExit()
                let current = device.appendingPathComponent("current")
                if FileManager.default.fileExists(atPath: current.path) {
                    let check = try await integrity(device)
                    #expect(check.hasPrefix("ok\n"), "round \(round): \(check)")
                } else {
                    // A first install killed before its switch leaves no current at all.
                    #expect(!FileManager.default.fileExists(atPath: current.appendingPathComponent("pokedex.sqlite").path))
                }
                let again = try await cli.run(["install", device.path, "--from", world.bundles(target).path], addMirror: false)
                #expect(again.status == 0, "round \(round): \(again.stderr)")
                #expect(try await integrity(device) == "ok\n\(target)", "round \(round)")
                #expect(again.stdout.hasPrefix("installed version \(target)") || again.stdout.hasPrefix("already at version \(target)"),
                        "round \(round): \(again.stdout)")
            }
            #expect(killed >= 12, "only \(killed) of 24 installs were still running when killed")
        }
    }

    @Test("the CLI prints one summary line and maps refusals to exit codes")
    func cliSummaryAndExitCodes() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let cli = PokesyncCLI(mirror: root)
            let device = root.appendingPathComponent("device").path
            let first = try await cli.run(["install", device, "--from", world.bundles(1).path], addMirror: false)
            #expect(first.status == 0 && first.stdout.hasPrefix("installed version 1 (full bundle, "))
            let second = try await cli.run(["install", device, "--from", world.bundles(2).path], addMirror: false)
            #expect(second.status == 0 && second.stdout.hasPrefix("installed version 2 (delta from 1, "), "\(second.stdout)")
            let same = try await cli.run(["install", device, "--from", world.bundles(2).path], addMirror: false)
            #expect(same.stdout == "already at version 2\n")
            let down = try await cli.run(["install", device, "--from", world.bundles(1).path], addMirror: false)
            #expect(down.status == 65 && down.stderr.contains("older than the installed 2"))
            let missing = try await cli.run(["install", device, "--from", root.appendingPathComponent("nowhere").path], addMirror: false)
            #expect(missing.status == 69)
            let usage = try await cli.run(["install", device], addMirror: false)
            #expect(usage.status == 64)
        }
    }
}
