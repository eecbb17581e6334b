import Foundation
import Testing
@testable import PokeSyncCore

/// A month of nights as cron runs them: the real nightly job (`cron/pokesync-nightly.sh`)
/// with a publish hook, over the two real samples and changes made from them, with a
/// sprite and cry host that has a bad night now and then (a few percent lost, 500s,
/// error pages, endless bodies, 404 for everything, a mix of 404 and 500), a night
/// killed with SIGKILL in its sync and one in its export, each run again (the second
/// mails the version the killed one published), and a device updating from the published
/// folder after every night.
///
/// What must hold over all of them: no version holds fewer linked files than it should
/// (every file the version before held and the documents still link, and after a good
/// night exactly what a clean mirror of the same snapshot holds), the published index
/// names the newest version after every night that published, every night exits as the
/// articles say, quiet nights print nothing, and the device ends equal to the last bundle.
@Suite("A month of nights", .serialized)
struct MonthOfNightsTests {
    /// One night: what upstream serves, how the file host behaves, and what the night
    /// must end with.
    struct Night: CustomStringConvertible {
        var name: String
        var snapshot: Snapshot
        /// `--file-host-fault` of the stand-in, nil for a good host.
        var fault: String? = nil
        /// The percentage of the snapshot's linked files the host has lost (404 for them):
        /// the same files every time, so a larger loss includes a smaller one.
        var lost = 0
        /// The nightly job's exit.
        var exit: Int32
        /// Whether a new version is published tonight.
        var publishes: Bool
        /// Killed with SIGKILL part way through, then run again (the second run is checked).
        var killed = false
        /// The whole job killed with SIGKILL in its export, after its sync published, then run
        /// again (the second run is checked: no changes, and it mails the killed night's diff).
        var killedInExport = false
        /// The night's bundle lacks files its profile asks for (never held: their host failed).
        var bundleLacksFiles = false
        var description: String { name }
    }

    enum Snapshot: CaseIterable {
        case december, august, augustChanged, augustChangedTwice
    }

    static let nights: [Night] = [
        Night(name: "1 first night, good host", snapshot: .december, exit: 0, publishes: true),
        Night(name: "2 the host loses 4% of its files", snapshot: .december, lost: 4, exit: 2, publishes: false),
        Night(name: "3 upstream update, the host answers 500", snapshot: .august, fault: "500", exit: 2, publishes: true,
              bundleLacksFiles: true),
        Night(name: "4 the host is back; the night killed in its export, and run again", snapshot: .august, exit: 0,
              publishes: true, killedInExport: true),
        Night(name: "5 a change, the host sends error pages", snapshot: .augustChanged, fault: "html", exit: 2, publishes: true),
        Night(name: "6 endless bodies", snapshot: .augustChanged, fault: "endless", exit: 2, publishes: false),
        Night(name: "7 404 for everything", snapshot: .augustChanged, fault: "404", exit: 2, publishes: false),
        Night(name: "8 a change, killed and run again", snapshot: .augustChangedTwice, exit: 0, publishes: true, killed: true),
        Night(name: "9 quiet", snapshot: .augustChangedTwice, exit: 0, publishes: false),
        Night(name: "10 the host loses 8% and answers 500 to the rest", snapshot: .augustChangedTwice, fault: "500-but-missing", lost: 8,
              exit: 2, publishes: false),
        Night(name: "11 the host loses 4% again", snapshot: .augustChangedTwice, lost: 4, exit: 2, publishes: false),
        Night(name: "12 quiet", snapshot: .augustChangedTwice, exit: 0, publishes: false),
    ]

    @Test func aMonthOfNightsLosesNothingAndTellsTheTruth() async throws {
        try await withTemporaryDirectory { scratch in
            let world = try await World(scratch)
            // What a clean mirror of each snapshot holds, from a good host.
            var clean: [Snapshot: Set<String>] = [:]
            for snapshot in Snapshot.allCases {
                clean[snapshot] = try await world.cleanMirror(of: snapshot)
            }
            var held = Set<String>()
            var latest = 0
            for night in Self.nights {
                let snapshotFiles = try #require(clean[night.snapshot])
                let result = try await world.run(night, clean: snapshotFiles)
                #expect(result.status == night.exit, "\(night): exit \(result.status)\n\(result.log)")
                let now = world.linkedFiles()
                // Nothing held and still linked is ever dropped; a good night holds exactly
                // what a clean mirror of the snapshot holds.
                let dropped = held.intersection(snapshotFiles).subtracting(now)
                #expect(dropped.isEmpty, "\(night): dropped \(dropped.count) held files, e.g. \(dropped.sorted().prefix(3))")
                if night.fault == nil && night.lost == 0 {
                    #expect(now == snapshotFiles, "\(night): \(now.count) files, a clean mirror holds \(snapshotFiles.count)")
                }
                #expect(now.isSubset(of: snapshotFiles), "\(night): holds files the documents do not link")
                held = now

                if night.publishes {
                    latest += 1
                    // Run again after the kill, the night finds the version published and mails it.
                    let said = night.killedInExport ? "no changes since version \(latest)" : "published version \(latest)"
                    #expect(result.log.contains(said), "\(night)\n\(result.log)")
                    if latest > 1 {
                        #expect(result.mail.contains("version \(latest - 1) → \(latest)"), "\(night): a night that publishes mails its diff")
                    }
                    #expect(result.mail.contains("not mailed before") == night.killedInExport, "\(night): \(result.mail)")
                } else {
                    #expect(!result.log.contains("published version"), "\(night)\n\(result.log)")
                    if night.exit == 0 {
                        #expect(result.mail.isEmpty, "\(night): a quiet night prints nothing: \(result.mail)")
                    }
                }
                // A host that lost files: every one of them counted, every night they stay lost.
                if night.lost > 0 && night.fault == nil {
                    let lost = World.lost(night.lost, of: snapshotFiles).count
                    #expect(Self.missingAtHost(result.log) == lost, "\(night): \(lost) lost\n\(result.log)")
                }
                #expect(result.log.contains("WARNING: exported, but not all of it") == night.bundleLacksFiles, "\(night)\n\(result.log)")
                if night.exit == 2 {
                    #expect(result.mail.contains("warning: ") && result.mail.contains("WARNING: "),
                            "\(night): the night says which host failed: \(result.mail)")
                }
                // The published index names the newest version, and the device follows it.
                #expect(try world.publishedLatest() == latest, "\(night)")
                let install = try await world.updateDevice()
                #expect(install.status == 0, "\(night): \(install.stdout) \(install.stderr)")
                #expect(try world.deviceVersion() == latest, "\(night)")
            }
            try await world.expectDeviceEqualsLastBundle(latest)
        }
    }

    /// The files the run's `warning:` lines count as missing at their host, all trees added.
    static func missingAtHost(_ log: String) -> Int {
        log.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.reduce(0) { sum, line in
            guard let range = line.range(of: #"\((\d+) missing at their host"#, options: .regularExpression) else { return sum }
            return sum + (Int(line[range].dropFirst().prefix { $0.isNumber }) ?? 0)
        }
    }
}

extension MonthOfNightsTests {
    /// The mirror, its stand-in upstream on one port for the whole month, the folder the
    /// publish hook copies the bundles to, and the device that updates from it.
    struct World {
        let scratch: URL
        let mirror: URL
        let published: URL
        let device: URL
        let hook: URL
        /// The stand-in's port, the same every night: mirror.json names it.
        let port: Int
        let snapshots: [Snapshot: URL]

        init(_ scratch: URL) async throws {
            self.scratch = scratch
            mirror = scratch.appendingPathComponent("Mirror")
            published = scratch.appendingPathComponent("published")
            device = scratch.appendingPathComponent("device")
            hook = scratch.appendingPathComponent("publish.sh")
            try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
            snapshots = try Self.makeSnapshots(in: scratch)
            // The hook copies the bundles folder as rsync to a static host would.
            try """
            #!/bin/sh
            mkdir -p "\(published.path)" && cp -a "$1"/. "\(published.path)"/
            """.write(to: hook, atomically: true, encoding: .utf8)
            chmod(hook.path, 0o755)
            port = try await withStandInServer(root: TestPaths.sample2025) { $0.port }
            try Self.writeConfig(mirror, port: port)
        }

        /// The choices of the month's mirror: default sprites and the latest cries from the
        /// stand-in, fast retries and timeouts (a bad host costs seconds, not minutes).
        static func writeConfig(_ mirror: URL, port: Int) throws {
            let origin = "http://127.0.0.1:\(port)"
            try """
            {"source": "\(origin)/api/v2", "sprites": "default", "sprite_source": "\(origin)/PokeAPI/sprites/master/",
             "cries": "latest", "cry_source": "\(origin)/PokeAPI/cries/main/", "timeout_seconds": 1,
             "retry": {"attempts": 2, "base_delay_ms": 20}, "retention": {"keep": 3},
             "bundles": {"sprites": "default", "grace_hours": 0}}
            """.write(to: mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
        }

        /// The two samples, and two nights of changes made from the newer one.
        static func makeSnapshots(in scratch: URL) throws -> [Snapshot: URL] {
            let changed = scratch.appendingPathComponent("august-changed")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: changed)
            try replace(in: changed.appendingPathComponent("api/v2/pokemon/1020/index.json"),
                        "\"base_experience\": 295", with: "\"base_experience\": 296")
            let twice = scratch.appendingPathComponent("august-changed-twice")
            try FileManager.default.copyItem(at: changed, to: twice)
            try replace(in: twice.appendingPathComponent("api/v2/pokemon/25/index.json"),
                        "\"base_experience\": 112", with: "\"base_experience\": 113")
            return [.december: TestPaths.sample2025, .august: TestPaths.sample2026, .augustChanged: changed,
                    .augustChangedTwice: twice]
        }

        static func replace(in file: URL, _ old: String, with new: String) throws {
            let text = try String(contentsOf: file, encoding: .utf8)
            try #require(text.contains(old), "\(file.path) has no \(old)")
            try text.replacingOccurrences(of: old, with: new).write(to: file, atomically: true, encoding: .utf8)
        }

        func options(_ snapshot: Snapshot, fault: String?, missing: [String] = []) -> StandInOptions {
            var options = StandInOptions(root: snapshots[snapshot]!)
            options.port = port
            // The stand-in derives its deploy hash from the lists alone; upstream's changes
            // with every deploy, so the changed copies get their own.
            options.deployHash = "\(snapshot)"
            options.fileHostFault = fault
            if !missing.isEmpty { options.spriteMissing = missing.joined(separator: ",") }
            return options
        }

        /// About `percent`% of `files`, the same ones for the same files, and a smaller
        /// percentage's files among a larger one's: paths below their tree, as the
        /// stand-in's `--sprite-missing` takes them.
        static func lost(_ percent: Int, of files: Set<String>) -> [String] {
            guard percent > 0 else { return [] }
            let sorted = files.sorted()
            let chosen = sorted.indices.filter { ($0 * 37) % 100 < percent }.map { sorted[$0] }
            return chosen.map { path in String(path.drop { $0 != "/" }.dropFirst()) }
        }

        /// The linked files a clean mirror of `snapshot` holds, from a good host.
        func cleanMirror(of snapshot: Snapshot) async throws -> Set<String> {
            let clean = scratch.appendingPathComponent("clean-\(snapshot)")
            try FileManager.default.createDirectory(at: clean, withIntermediateDirectories: true)
            try Self.writeConfig(clean, port: port)
            return try await withStandInServer(options(snapshot, fault: nil)) { _ in
                let full = try await PokesyncCLI(mirror: clean).run(["sync"])
                try #require(full.status == 0, "\(full.stdout) \(full.stderr)")
                return Self.linkedFiles(clean)
            }
        }

        func linkedFiles() -> Set<String> { Self.linkedFiles(mirror) }

        /// `sprites/...` and `cries/...` paths of the trees (the latest version's files).
        static func linkedFiles(_ mirror: URL) -> Set<String> {
            var files = Set<String>()
            for tree in ["sprites", "cries"] {
                files.formUnion(SpriteMirrorTests.tree(mirror.appendingPathComponent(tree)).keys.map { "\(tree)/\($0)" })
            }
            return files
        }

        struct NightResult {
            var status: Int32
            var log: String
            var mail: String
        }

        /// Runs the nightly job once with the stand-in serving the night's snapshot and fault;
        /// a killed night is started with a slow host, killed with SIGKILL once its sync has
        /// started work, and run again.
        func run(_ night: Night, clean: Set<String>) async throws -> NightResult {
            let missing = Self.lost(night.lost, of: clean)
            if night.lost > 0 { try #require(!missing.isEmpty, "\(night): no file to lose") }
            if night.killedInExport {
                try await withStandInServer(options(night.snapshot, fault: night.fault, missing: missing)) { _ in
                    let killed = try await CronJobTests.nightKilledInItsExport(environment: environment, scratch: scratch)
                    #expect(killed.status != 0 && killed.stdout.isEmpty, "\(night): the killed night's exit and mail")
                }
            }
            if night.killed {
                var slow = options(night.snapshot, fault: night.fault, missing: missing)
                slow.latencyMilliseconds = 30
                try await withStandInServer(slow) { _ in
                    let killed = try await killedNight()
                    #expect(killed != 0, "\(night): the killed night's exit")
                }
            }
            return try await withStandInServer(options(night.snapshot, fault: night.fault, missing: missing)) { _ in
                try await nightlyJob()
            }
        }

        var environment: [String: String] {
            var environment = ProcessInfo.processInfo.environment
            environment["POKESYNC"] = PokesyncCLI.binary.path
            environment["POKESYNC_MIRROR"] = mirror.path
            environment["POKESYNC_PUBLISH"] = hook.path
            return environment
        }

        func nightlyJob() async throws -> NightResult {
            let night = try await CronJobTests().nightWithOutput(mirror, publish: hook)
            return NightResult(status: night.status, log: night.log, mail: night.mail)
        }

        /// Starts the nightly job, waits until its sync holds the mirror's lock and has a run
        /// under way, then kills the sync with SIGKILL; returns the job's exit.
        func killedNight() async throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [CronJobTests.script.path]
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let exit = ProcessExit(of: process)
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            var victim: pid_t?
            while victim == nil, Date() < deadline, process.isRunning {
                victim = syncProcess()
                if victim == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            let pid = try #require(victim, "the night's sync never started")
            try await Task.sleep(for: .milliseconds(400))  // part way into the crawl
            kill(pid, SIGKILL)
            await exit.wait()
            return process.terminationStatus
        }

        /// The pid of a running `pokesync sync --mirror MIRROR`, found in /proc.
        func syncProcess() -> pid_t? {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            for entry in entries {
                guard let pid = pid_t(entry),
                      let line = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
                let words = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                if words.first == PokesyncCLI.binary.path, words.contains("sync"), words.contains(mirror.path) { return pid }
            }
            return nil
        }

        /// `latest` of the published index.json.
        func publishedLatest() throws -> Int? {
            let data = try Data(contentsOf: published.appendingPathComponent("index.json"))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return object["latest"] as? Int
        }

        func updateDevice() async throws -> PokesyncCLI.Result {
            try await PokesyncCLI(mirror: mirror).run(["install", device.path, "--from", published.path], addMirror: false)
        }

        /// The version `device/current` names (`versions/N` or `versions/N.<hex>`).
        func deviceVersion() throws -> Int? {
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: device.appendingPathComponent("current").path)
            let name = (target as NSString).lastPathComponent
            return Int(name.split(separator: ".").first ?? "")
        }

        /// The device holds what the last full bundle holds: the same sprites, byte for
        /// byte, and a database with the same content digest.
        func expectDeviceEqualsLastBundle(_ version: Int) async throws {
            let unpacked = scratch.appendingPathComponent("last-bundle")
            try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
            let bundle = published.appendingPathComponent("pokedex-\(version).tar.gz")
            let tar = try await runProgram("tar", ["-xzf", bundle.path, "-C", unpacked.path])
            try #require(tar.status == 0, "\(tar.stderr)")
            let current = device.appendingPathComponent("current")
            #expect(SpriteMirrorTests.tree(current.appendingPathComponent("sprites"))
                    == SpriteMirrorTests.tree(unpacked.appendingPathComponent("sprites")), "the device's sprites")
            #expect(try await Self.contentDigest(current.appendingPathComponent("pokedex.sqlite"))
                    == Self.contentDigest(unpacked.appendingPathComponent("pokedex.sqlite")), "the device's database")
        }

        static func contentDigest(_ database: URL) async throws -> String {
            let result = try await runProgram("sqlite3", ["-readonly", database.path, "SELECT value FROM meta WHERE key = 'content_digest'"])
            try #require(result.status == 0, "\(result.stderr)")
            return String(decoding: result.stdout, as: UTF8.self)
        }
    }
}
