import Foundation
import Testing
@testable import PokeSyncCore

/// `make install PREFIX=...` installs a working whole: its install-files recipe (the one
/// `make install` runs after the static build) puts this build's binary, stripped, and the
/// cron/ files, each naming PREFIX, in a temporary PREFIX; the installed crontab line runs
/// the installed nightly job with cron's bare environment, the installed units verify, and
/// `make uninstall` leaves PREFIX empty and the mirror as it was.
@Suite("make install: a working whole under any PREFIX")
struct InstallTests {
    static let tools = ["/usr/bin/make", "/usr/bin/objcopy", "/usr/bin/readelf"]
    static let installed: Set<String> = [
        "bin", "bin/pokesync", "lib", "lib/pokesync", "lib/pokesync/pokesync.debug", "lib/pokesync/installed-files",
        "lib/pokesync/pokesync-nightly.sh", "lib/pokesync/pokesync-publish-rsync.sh", "lib/pokesync/crontab",
        "lib/pokesync/pokesync-nightly.service", "lib/pokesync/pokesync-nightly.timer", "lib/pokesync/pokesync-serve.service",
    ]

    func make(_ arguments: [String]) async throws -> ProgramResult {
        try await runProgram("/usr/bin/make", ["-s", "-C", TestPaths.packageRoot.path] + arguments)
    }

    /// The crontab's job line run as cron runs it: `sh -c`, with only cron's variables.
    func night(crontab: URL, mirror: URL, home: URL) async throws -> ProgramResult {
        let text = try String(contentsOf: crontab, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { !$0.hasPrefix("#") && $0.contains("pokesync-nightly.sh") })
        let command = line.split(separator: " ", maxSplits: 5)[5].replacingOccurrences(of: "/srv/pokesync/Mirror", with: mirror.path)
        return try await runProgram("/bin/sh", ["-c", command],
                              environment: ["PATH": "/usr/bin:/bin", "HOME": home.path, "SHELL": "/bin/sh", "LOGNAME": "root"])
    }

    @Test(.enabled(if: tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }, "needs make and binutils"))
    func installRunUninstall() async throws {
        try await withTemporaryDirectory { scratch in
            let prefix = scratch.appendingPathComponent("prefix")
            try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: false)
            let install = try await make(["install-files", "PREFIX=\(prefix.path)", "BIN=\(PokesyncCLI.binary.path)"])
            try #require(install.status == 0, "\(install.stderr)")
            let files = Set(FileManager.default.enumerator(atPath: prefix.path)!.compactMap { $0 as? String })
            #expect(files.subtracting(["lib/pokesync/pokesync-serve.logrotate"]) == Self.installed, "\(files.sorted())")

            // Stripped, and pointing at its debug info beside the scripts.
            let sections = try await runProgram("/usr/bin/readelf", ["-S", prefix.appendingPathComponent("bin/pokesync").path])
            #expect(!sections.text.contains(".debug_info") && !sections.text.contains(".symtab"))
            #expect(sections.text.contains(".gnu_debuglink"))
            #expect(try await runProgram(prefix.appendingPathComponent("bin/pokesync").path, ["--version"]).text.hasPrefix("pokesync "))
            // Every installed text names PREFIX, none /usr/local.
            for name in files where name.hasPrefix("lib/pokesync/") && !name.hasSuffix(".debug") {
                let text = try String(contentsOf: prefix.appendingPathComponent(name), encoding: .utf8)
                #expect(!text.contains("/usr/local/"), "\(name) names /usr/local")
            }
            let lib = prefix.appendingPathComponent("lib/pokesync")
            for name in ["crontab", "pokesync-nightly.service", "pokesync-nightly.sh", "pokesync-serve.service"] {
                let text = try String(contentsOf: lib.appendingPathComponent(name), encoding: .utf8)
                #expect(text.contains(prefix.path + "/"), "\(name) does not name PREFIX")
            }

            // The installed nightly job, as the installed crontab line runs it: no pokesync on
            // cron's PATH but the installed one.
            #expect(!["/usr/bin/pokesync", "/bin/pokesync"].contains { FileManager.default.fileExists(atPath: $0) })
            let mirror = scratch.appendingPathComponent("Mirror")
            try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
            // The source is one path whose data changes between nights, as upstream's does.
            let upstream = scratch.appendingPathComponent("upstream")
            func choose(_ sample: URL) throws {
                try? FileManager.default.removeItem(at: upstream)
                try FileManager.default.createSymbolicLink(at: upstream, withDestinationURL: sample)
            }
            try """
            {"source": "\(upstream.path)", "sprites": "none", "bundles": {"sprites": "none"}}
            """.write(to: mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
            try choose(TestPaths.sample2025)
            let first = try await night(crontab: lib.appendingPathComponent("crontab"), mirror: mirror, home: scratch)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(FileManager.default.fileExists(atPath: mirror.appendingPathComponent("bundles/pokedex-1.tar.gz").path))
            try choose(TestPaths.sample2026)
            let second = try await night(crontab: lib.appendingPathComponent("crontab"), mirror: mirror, home: scratch)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.text.contains("published version 2"), "the mail: \(second.text)")
            // A night that finds the lock held (a run, a backup) skips with 75 and says so on
            // standard error: cron mails it, and under the timer it is in the journal.
            let lock = try MirrorLock(layout: MirrorLayout(root: mirror))
            let skipped = try await night(crontab: lib.appendingPathComponent("crontab"), mirror: mirror, home: scratch)
            withExtendedLifetime(lock) {}
            #expect(skipped.status == 75 && skipped.stderr.contains("skipped tonight"), "\(skipped.stderr)")

            // The installed units verify as installed: their programs are PREFIX's.
            if let analyze = DeploymentTests.analyze {
                let units = ["pokesync-serve.service", "pokesync-nightly.service", "pokesync-nightly.timer"]
                let result = try await runProgram(analyze, ["verify"] + units.map { lib.appendingPathComponent($0).path },
                                            environment: ProcessInfo.processInfo.environment.merging(["SYSTEMD_LOG_LEVEL": "notice"]) { $1 })
                #expect(result.status == 0 && result.stderr.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(result.stderr)")
            }

            let mirrorBefore = Set(FileManager.default.enumerator(atPath: mirror.path)!.compactMap { $0 as? String })
            let uninstall = try await make(["uninstall", "PREFIX=\(prefix.path)"])
            #expect(uninstall.status == 0, "\(uninstall.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: prefix.path).isEmpty)
            #expect(Set(FileManager.default.enumerator(atPath: mirror.path)!.compactMap { $0 as? String }) == mirrorBefore)
        }
    }
}
