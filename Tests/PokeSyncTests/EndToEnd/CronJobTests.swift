import Foundation
import Testing
@testable import PokeSyncCore

/// `cron/pokesync-nightly.sh`: the log, the exit code passed through, a night that finds the lock held.
@Suite("Nightly cron job", .serialized)
struct CronJobTests {
    static let script = TestPaths.packageRoot.appendingPathComponent("cron/pokesync-nightly.sh")

    func night(_ mirror: URL, keepLogs: Int = 30, extra: [String] = []) throws -> (status: Int32, log: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["POKESYNC"] = PokesyncCLI.binary.path
        environment["POKESYNC_MIRROR"] = mirror.path
        environment["POKESYNC_KEEP_LOGS"] = String(keepLogs)
        let night = try runProgram("/bin/bash", [Self.script.path] + extra, environment: environment)
        let logs = try FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("logs").path).sorted()
        let newest = try #require(try logs.max { a, b in
            try Self.modified(mirror, a) < Self.modified(mirror, b)
        })
        return (night.status, try String(contentsOf: mirror.appendingPathComponent("logs/\(newest)"), encoding: .utf8))
    }

    static func modified(_ mirror: URL, _ name: String) throws -> Date {
        try FileManager.default.attributesOfItem(atPath: mirror.appendingPathComponent("logs/\(name)").path)[.modificationDate] as! Date
    }

    @Test func nightsAreLoggedLockedNightsSkipAndLogsRotate() throws {
        try withTemporaryDirectory { scratch in
            let mirror = scratch.appendingPathComponent("Mirror")
            try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
            try """
            {"source": "\(TestPaths.sample2026.path)", "sprites": "none", "retention": {"keep": 1},
             "bundles": {"sprites": "none"}}
            """.write(to: mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)

            let first = try night(mirror)
            #expect(first.status == 0, "\(first.log)")
            #expect(first.log.contains("published version 1") && first.log.contains("pokesync prune"))
            // The night exports the new version's bundle; the next night keeps it.
            #expect(first.log.contains("pokesync export") && first.log.contains("wrote") && first.log.contains("pokedex-1.tar.gz"))
            #expect(FileManager.default.fileExists(atPath: mirror.appendingPathComponent("bundles/index.json").path))
            let second = try night(mirror)
            #expect(second.status == 0)
            #expect(second.log.contains("no changes since version 1"))
            #expect(second.log.contains("kept") && second.log.contains("pokedex-1.tar.gz"))

            // Last night's run still going: this night exits 75 at once and says so.
            let lock = try MirrorLock(layout: MirrorLayout(root: mirror))
            let locked = try night(mirror)
            withExtendedLifetime(lock) {}
            #expect(locked.status == 75)
            #expect(locked.log.contains("still holds the mirror's lock"))

            _ = try night(mirror, keepLogs: 2)
            let logs = try FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("logs").path)
            #expect(logs.count == 2)
        }
    }

    /// A night whose sprite host has turned bad: published all the same, prune and export
    /// run, the night exits 2 and its log (and so cron's mail of its tail) names the host.
    @Test func aNightWithABadFileHostExits2AndSaysSo() async throws {
        try await withTemporaryDirectory { scratch in
            let mirror = scratch.appendingPathComponent("Mirror")
            try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
            let port = try await withStandInServer(root: TestPaths.sample2026) { server -> Int in
                try """
                {"source": "\(server.baseURL.absoluteString)", "sprites": "default",
                 "sprite_source": "\(server.spriteBaseURL.absoluteString)", "bundles": {"sprites": "none"}}
                """.write(to: mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
                let first = try night(mirror)
                #expect(first.status == 0, "\(first.log)")
                return server.port
            }
            var options = StandInOptions(root: TestPaths.sample2026)
            options.port = port
            options.fileHostFault = "500"
            try await withStandInServer(options) { _ in
                let bad = try night(mirror, extra: ["--timeout", "1"])
                #expect(bad.status == 2, "\(bad.log)")
                #expect(bad.log.contains("warning: sprites: ") && bad.log.contains("carried from the version before"), "\(bad.log)")
                #expect(bad.log.contains("WARNING: published, but a file host failed"), "\(bad.log)")
                #expect(bad.log.contains("pokesync prune") && bad.log.contains("pokesync export") && bad.log.contains("done, exit 2"),
                        "\(bad.log)")
            }
        }
    }
}
