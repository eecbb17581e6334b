import Foundation
import Testing
@testable import PokeSyncCore

/// `cron/pokesync-nightly.sh`: the log, the exit code passed through, a night that finds the lock held.
@Suite("Nightly cron job", .serialized)
struct CronJobTests {
    static let script = TestPaths.packageRoot.appendingPathComponent("cron/pokesync-nightly.sh")

    func night(_ mirror: URL, keepLogs: Int = 30, extra: [String] = []) async throws -> (status: Int32, log: String) {
        let night = try await nightWithOutput(mirror, keepLogs: keepLogs, extra: extra)
        return (night.status, night.log)
    }

    /// One night: its exit code, its log, and what it printed (what cron mails).
    func nightWithOutput(_ mirror: URL, keepLogs: Int = 30, publish: URL? = nil, extra: [String] = []) async throws -> (status: Int32, log: String, mail: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["POKESYNC"] = PokesyncCLI.binary.path
        environment["POKESYNC_MIRROR"] = mirror.path
        environment["POKESYNC_KEEP_LOGS"] = String(keepLogs)
        if let publish { environment["POKESYNC_PUBLISH"] = publish.path }
        let night = try await runProgram("/bin/bash", [Self.script.path] + extra, environment: environment)
        let logs = try FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("logs").path)
            .filter { $0.hasPrefix("nightly-") }.sorted()
        let newest = try #require(try logs.max { a, b in
            try Self.modified(mirror, a) < Self.modified(mirror, b)
        })
        return (night.status, try String(contentsOf: mirror.appendingPathComponent("logs/\(newest)"), encoding: .utf8),
                String(decoding: night.stdout, as: UTF8.self) + night.stderr)
    }

    /// A publish hook that records each bundles folder it was given (when its index is
    /// there) in `record`, one line each: what a static host's copy would have seen.
    static func recordingHook(in scratch: URL) throws -> (hook: URL, record: URL) {
        let hook = scratch.appendingPathComponent("publish.sh")
        let record = scratch.appendingPathComponent("published.txt")
        try """
        #!/bin/sh
        [ -f "$1/index.json" ] && echo "published $1" >>"\(record.path)"
        """.write(to: hook, atomically: true, encoding: .utf8)
        chmod(hook.path, 0o755)
        return (hook, record)
    }

    /// A mirror folder whose mirror.json names one source path, `upstream`, whose content
    /// changes between nights as upstream's does (the December sample first); no sprites.
    static func mirrorOfChangingUpstream(in scratch: URL) throws -> (mirror: URL, upstream: URL) {
        let mirror = scratch.appendingPathComponent("Mirror")
        try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
        let upstream = scratch.appendingPathComponent("upstream")
        try point(upstream, at: TestPaths.sample2025)
        try """
        {"source": "\(upstream.path)", "sprites": "none", "bundles": {"sprites": "none"}}
        """.write(to: mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
        return (mirror, upstream)
    }

    /// The nightly job with `environment`, killed outright once it starts its export:
    /// SIGKILL to its whole process group, as when the machine stops. It runs in a session
    /// of its own (so nothing else is in that group), with a stand-in for pokesync that
    /// kills the group at `export` and is pokesync otherwise.
    static func nightKilledInItsExport(environment: [String: String], scratch: URL) async throws -> ProgramResult {
        let trigger = scratch.appendingPathComponent("kill-the-export")
        let killer = scratch.appendingPathComponent("pokesync-killed-in-export")
        try """
        #!/bin/sh
        if [ "$1" = export ] && [ -e "\(trigger.path)" ]; then rm -f "\(trigger.path)"; kill -9 0; fi
        exec "\(PokesyncCLI.binary.path)" "$@"
        """.write(to: killer, atomically: true, encoding: .utf8)
        chmod(killer.path, 0o755)
        _ = FileManager.default.createFile(atPath: trigger.path, contents: nil)
        var environment = environment
        environment["POKESYNC"] = killer.path
        let night = try await runProgram("/usr/bin/setsid", ["-w", "/bin/bash", script.path], environment: environment)
        #expect(!FileManager.default.fileExists(atPath: trigger.path), "the night never reached its export")
        return night
    }

    /// Upstream serves `sample` from now on.
    static func point(_ upstream: URL, at sample: URL) throws {
        try? FileManager.default.removeItem(at: upstream)
        try FileManager.default.createSymbolicLink(at: upstream, withDestinationURL: sample)
    }

    static func modified(_ mirror: URL, _ name: String) throws -> Date {
        try FileManager.default.attributesOfItem(atPath: mirror.appendingPathComponent("logs/\(name)").path)[.modificationDate] as! Date
    }

    @Test func nightsAreLoggedLockedNightsSkipAndLogsRotate() async throws {
        try await withTemporaryDirectory { scratch in
            let mirror = scratch.appendingPathComponent("Mirror")
            try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
            try """
            {"source": "\(TestPaths.sample2026.path)", "sprites": "none", "retention": {"keep": 1},
             "bundles": {"sprites": "none"}}
            """.write(to: mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)

            let first = try await night(mirror)
            #expect(first.status == 0, "\(first.log)")
            #expect(first.log.contains("published version 1") && first.log.contains("pokesync prune"))
            // The night exports the new version's bundle; the next night keeps it.
            #expect(first.log.contains("pokesync export") && first.log.contains("wrote") && first.log.contains("pokedex-1.tar.gz"))
            #expect(FileManager.default.fileExists(atPath: mirror.appendingPathComponent("bundles/index.json").path))
            let second = try await night(mirror)
            #expect(second.status == 0)
            #expect(second.log.contains("no changes since version 1"))
            #expect(second.log.contains("kept") && second.log.contains("pokedex-1.tar.gz"))

            // Last night's run still going: this night exits 75 at once and says so.
            let lock = try MirrorLock(layout: MirrorLayout(root: mirror))
            let locked = try await night(mirror)
            withExtendedLifetime(lock) {}
            #expect(locked.status == 75)
            #expect(locked.log.contains("still holds the mirror's lock"))

            _ = try await night(mirror, keepLogs: 2)
            let logs = try FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("logs").path)
            #expect(logs.filter { $0.hasPrefix("nightly-") }.count == 2, "\(logs)")
        }
    }

    /// Two snapshots of upstream on two nights: the night that publishes puts its diff (the
    /// changed documents by name) in the log and on standard output, for cron to mail; a
    /// night with no changes prints nothing. The publish hook gets the bundles folder.
    @Test func aNightThatPublishesMailsItsDiffAndAQuietNightSaysNothing() async throws {
        try await withTemporaryDirectory { scratch in
            let (mirror, upstream) = try Self.mirrorOfChangingUpstream(in: scratch)
            // The hook records what it was given and whether the index was there.
            let (hook, record) = try CronJobTests.recordingHook(in: scratch)

            let first = try await nightWithOutput(mirror, publish: hook)
            #expect(first.status == 0 && first.log.contains("published version 1"), "\(first.log)")
            #expect(first.mail.isEmpty, "a first version has no diff to mail: \(first.mail)")
            #expect(try String(contentsOf: record, encoding: .utf8) == "published \(mirror.path)/bundles\n")

            try Self.point(upstream, at: TestPaths.sample2026)
            let second = try await nightWithOutput(mirror, publish: hook)
            #expect(second.status == 0 && second.log.contains("published version 2"), "\(second.log)")
            let diff = try String(contentsOf: mirror.appendingPathComponent("diffs/1-2.txt"), encoding: .utf8)
            #expect(diff.contains("version 1 → 2") && diff.contains("pokemon "), "\(diff)")
            // The changed documents by name, in the log and in the mail.
            let changedName = try #require(diff.split(separator: "\n").first { $0.hasPrefix("  ~ ") })
            #expect(second.log.contains(diff), "the log holds the diff: \(second.log)")
            #expect(second.mail.contains("published version 2") && second.mail.contains(String(changedName)), "\(second.mail)")
            #expect(second.mail.contains("changes since version 1"))

            let third = try await nightWithOutput(mirror, publish: hook)
            #expect(third.status == 0 && third.log.contains("no changes since version 2"), "\(third.log)")
            #expect(third.mail.isEmpty, "a night with no changes is quiet: \(third.mail)")
            #expect(try String(contentsOf: record, encoding: .utf8).split(separator: "\n").count == 3)
            // No stamp file is left behind: the logs and the mark of the last mail.
            let logs = try FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("logs").path)
            #expect(logs.allSatisfy { $0.hasPrefix("nightly-") || $0 == ".mailed" }, "\(logs)")
        }
    }

    /// A night killed outright in its export (SIGKILL to the whole job, as when the machine
    /// stops), after its sync published version 2: it mailed nothing and left its marker.
    /// The next night (no changes upstream) mails version 2's diff, saying which night
    /// published it, removes the marker and exports the bundle; the night after is quiet.
    @Test func aVersionPublishedByANightKilledInItsExportIsMailedByTheNext() async throws {
        try await withTemporaryDirectory { scratch in
            let (mirror, upstream) = try Self.mirrorOfChangingUpstream(in: scratch)
            let first = try await nightWithOutput(mirror)
            try #require(first.status == 0, "\(first.log)")

            try Self.point(upstream, at: TestPaths.sample2026)
            var environment = ProcessInfo.processInfo.environment
            environment["POKESYNC_MIRROR"] = mirror.path
            let killed = try await Self.nightKilledInItsExport(environment: environment, scratch: scratch)
            #expect(killed.status != 0 && killed.stdout.isEmpty, "the killed night mailed: \(killed.text)")
            let logs = mirror.appendingPathComponent("logs")
            let markers = try FileManager.default.contentsOfDirectory(atPath: logs.path).filter { $0.hasPrefix(".night-") }
            #expect(markers.count == 1, "the killed night's marker: \(markers)")
            let pid = try #require(markers.first).dropFirst(".night-".count)
            let killedLog = try #require(try FileManager.default.contentsOfDirectory(atPath: logs.path).first {
                $0.hasPrefix("nightly-") && $0.hasSuffix("-\(pid).log")
            })
            #expect(try String(contentsOf: logs.appendingPathComponent(killedLog), encoding: .utf8).contains("published version 2:"))
            #expect(!FileManager.default.fileExists(atPath: mirror.appendingPathComponent("bundles/pokedex-2.tar.gz").path))

            let next = try await nightWithOutput(mirror)
            #expect(next.status == 0 && next.log.contains("no changes since version 2"), "\(next.log)")
            let diff = try String(contentsOf: mirror.appendingPathComponent("diffs/1-2.txt"), encoding: .utf8)
            #expect(next.mail.contains(diff), "the next night mails version 2's diff: \(next.mail)")
            #expect(next.mail.hasPrefix("not mailed before") && next.mail.contains("version 2, published ")
                    && next.mail.contains(killedLog), "it says which night published it: \(next.mail)")
            // Nothing else: finding the killed night's process gone is no error to mail.
            #expect(!next.mail.contains("No such file"), "\(next.mail)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: logs.path).allSatisfy { !$0.hasPrefix(".night-") },
                    "the killed night's marker is cleaned")
            #expect(FileManager.default.fileExists(atPath: mirror.appendingPathComponent("bundles/pokedex-2.tar.gz").path))

            let quiet = try await nightWithOutput(mirror)
            #expect(quiet.status == 0 && quiet.mail.isEmpty, "mailed once, not again: \(quiet.mail)")
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
                let first = try await night(mirror)
                #expect(first.status == 0, "\(first.log)")
                return server.port
            }
            var options = StandInOptions(root: TestPaths.sample2026)
            options.port = port
            options.fileHostFault = "500"
            try await withStandInServer(options) { _ in
                let bad = try await night(mirror, extra: ["--timeout", "1"])
                #expect(bad.status == 2, "\(bad.log)")
                #expect(bad.log.contains("warning: sprites: ") && bad.log.contains("carried from the version before"), "\(bad.log)")
                #expect(bad.log.contains("WARNING: a file host failed or lost files"), "\(bad.log)")
                #expect(bad.log.contains("pokesync prune") && bad.log.contains("pokesync export") && bad.log.contains("done, exit 2"),
                        "\(bad.log)")
            }
        }
    }
}
