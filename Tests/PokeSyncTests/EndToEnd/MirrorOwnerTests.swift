import Foundation
import Testing

/// The mirror has one owner: root running a command that writes another user's mirror is
/// refused at once (77) with the line to run instead, and nothing in the folder changes;
/// the commands that only read it still work as root and leave no file root owns.
@Suite("Mirror owner: root does not write another user's mirror")
struct MirrorOwnerTests {
    /// `nobody`, the user every Debian and Ubuntu has.
    static let nobody: uid_t = 65534

    /// Every file and folder below `root`: its owner, size, time and inode, by path. The
    /// store's `-wal`/`-shm` (SQLite's own, made and removed by readers) are left out.
    static func tree(_ root: URL) -> [String: String] {
        var entries: [String: String] = [:]
        let walker = FileManager.default.enumerator(atPath: root.path)
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix("-wal") || path.hasSuffix("-shm") { continue }
            var info = stat()
            lstat(root.appendingPathComponent(path).path, &info)
            entries[path] = "uid \(info.st_uid) size \(info.st_size) time \(info.modificationNanoseconds) inode \(info.st_ino)"
        }
        return entries
    }

    /// Paths below `root` (the root included) that root owns.
    static func rootOwned(_ root: URL) -> [String] {
        var owned: [String] = []
        var info = stat()
        if lstat(root.path, &info) == 0, info.st_uid == 0 { owned.append(".") }
        let walker = FileManager.default.enumerator(atPath: root.path)
        while let path = walker?.nextObject() as? String {
            if lstat(root.appendingPathComponent(path).path, &info) == 0, info.st_uid == 0 { owned.append(path) }
        }
        return owned
    }

    @Test(.enabled(if: geteuid() == 0, "needs root (the suite runs as root in CI)"))
    func rootIsRefusedEveryWriteAndReadsStillWork() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try #require(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            try #require(try await cli.run(["sync", "--source", TestPaths.sample2026.path]).status == 0)
            try #require(try await cli.run(["export", "--sprites", "none"]).status == 0)
            try await runProgram("chown", ["-R", "\(Self.nobody):\(Self.nobody)", cli.mirror.path])
            let before = Self.tree(cli.mirror)
            let backup = scratch.appendingPathComponent("backup")

            let writes: [[String]] = [
                ["full", "--source", TestPaths.sample2026.path], ["sync", "--source", TestPaths.sample2026.path],
                ["export"], ["export", "--version", "1", "--sprites", "none"], ["prune", "--keep", "1"], ["prune"],
                ["backup", backup.path],
                // Takes no lock, but writes inside the mirror: refused all the same.
                ["export", "--format", "api-data", "--out", cli.mirror.appendingPathComponent("api-export").path],
            ]
            for words in writes {
                let result = try await cli.run(words)
                #expect(result.status == 77, "\(words): \(result.status) \(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1, "\(words): \(result.stderr)")
                // Names the owner and this very command, to run as the owner.
                let rerun = "runuser -u nobody -- \(PokesyncCLI.binary.path) \(words.joined(separator: " ")) --mirror \(cli.mirror.path)"
                #expect(result.stderr.contains("the mirror \(cli.mirror.path) belongs to nobody"), "\(result.stderr)")
                #expect(result.stderr.contains(rerun), "\(words): \(result.stderr)")
                #expect(Self.tree(cli.mirror) == before, "\(words) changed the mirror")
                #expect(!FileManager.default.fileExists(atPath: backup.path))
            }

            // Readers work, and whatever SQLite makes for them is the owner's, not root's.
            for words in [["status"], ["versions"], ["diff"], ["show", "pikachu"], ["search", "pika"]] {
                let result = try await cli.run(words)
                #expect(result.status == 0, "\(words): \(result.stderr)")
            }
            let verify = try await cli.run(["verify", cli.mirror.path], addMirror: false)
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            #expect(Self.rootOwned(cli.mirror).isEmpty, "root-owned: \(Self.rootOwned(cli.mirror))")
            #expect(Self.tree(cli.mirror) == before)
        }
    }

    /// Every line the refusals tell root to run, pasted into a new shell in the same folder:
    /// the mirror was given as a one-off relative `POKESYNC_MIRROR=../Mirror` prefix, which
    /// that shell has not got, so the line must carry it, from the root. Each line runs and
    /// succeeds, and root ends up owning nothing in the mirror.
    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser"),
                   "needs root and runuser (the suite runs as root in CI)"))
    func everyLineToRunWorksAsGivenInANewShell() async throws {
        try await withTemporaryDirectory { scratch in
            chmod(scratch.path, 0o755)  // nobody reaches the mirror and the folder the lines run in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try #require(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            try """
            {"source": "\(TestPaths.sample2026.path)", "sprites": "none", "bundles": {"sprites": "none"}}
            """.write(to: cli.mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
            let backups = scratch.appendingPathComponent("backups")
            try FileManager.default.createDirectory(at: backups, withIntermediateDirectories: false)
            try await runProgram("chown", ["-R", "\(Self.nobody):\(Self.nobody)", cli.mirror.path, backups.path])
            // Root's shell, in a folder of its own beside the mirror; no POKESYNC* of its own.
            let folder = scratch.appendingPathComponent("root-shell")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            let shell = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("POKESYNC") }
            let binary = PokesyncCLI.binary.path, script = CronJobTests.script.path
            let commands = [
                "POKESYNC_MIRROR=../Mirror \(binary) sync", "POKESYNC_MIRROR=../Mirror \(binary) export",
                "POKESYNC_MIRROR=../Mirror \(binary) export --format api-data --out ../Mirror/api-export",
                "POKESYNC_MIRROR=../Mirror \(binary) backup ../backups/today", "POKESYNC_MIRROR=../Mirror \(binary) prune --keep 1",
                // The crontab's line, as root might paste it.
                "POKESYNC=\(binary) POKESYNC_MIRROR=../Mirror \(script)",
            ]
            for command in commands {
                let refused = try await runProgram("/bin/bash", ["-c", command], in: folder, environment: shell)
                #expect(refused.status == 77, "\(command): \(refused.status) \(refused.stderr)")
                let line = try #require(refused.stderr.range(of: "; run: ").map { String(refused.stderr[$0.upperBound...]) },
                                        "\(command): \(refused.stderr)").trimmingCharacters(in: .newlines)
                #expect(line.hasPrefix("runuser -u nobody -- ") && line.contains(cli.mirror.path), "\(command): \(line)")
                let run = try await runProgram("/bin/bash", ["-c", line], in: folder, environment: shell)
                #expect(run.status == 0, "\(line): \(run.status)\n\(run.text)\n\(run.stderr)")
            }
            #expect(FileManager.default.fileExists(atPath: cli.mirror.appendingPathComponent("api-export/api/v2/pokemon/25/index.json").path))
            #expect(FileManager.default.fileExists(atPath: backups.appendingPathComponent("today/store.sqlite").path))
            #expect(Self.rootOwned(cli.mirror).isEmpty, "root-owned: \(Self.rootOwned(cli.mirror))")
        }
    }

    @Test(.enabled(if: geteuid() == 0, "needs root (the suite runs as root in CI)"))
    func rootMayWriteItsOwnMirrorAndANewOne() async throws {
        try await withTemporaryDirectory { scratch in
            // A folder that does not exist yet has no owner: root makes it, and owns it.
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
            #expect(full.status == 0, "\(full.stderr)")
            let prune = try await cli.run(["prune", "--keep", "1"])
            #expect(prune.status == 0, "\(prune.stderr)")
        }
    }

    /// `sudo pokesync full` on a fresh server: the mirror folder does not exist yet, but
    /// the folder it would be made in is the owner's. Refused, and nothing is made.
    @Test(.enabled(if: geteuid() == 0, "needs root (the suite runs as root in CI)"))
    func rootIsRefusedAMissingMirrorInAnotherUsersFolder() async throws {
        try await withTemporaryDirectory { scratch in
            let home = scratch.appendingPathComponent("srv-pokesync")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            try await runProgram("chown", ["\(Self.nobody):\(Self.nobody)", home.path])
            let cli = PokesyncCLI(mirror: home.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
            #expect(full.status == 77, "\(full.stderr)")
            #expect(full.stderr.contains("belongs to nobody") && full.stderr.contains("runuser -u nobody -- "), "\(full.stderr)")
            #expect(!FileManager.default.fileExists(atPath: cli.mirror.path))
        }
    }

    /// The nightly job run once by hand as root on the owner's mirror: it refuses before it
    /// makes its log folder or log, so the owner's next night is not locked out of them.
    @Test(.enabled(if: geteuid() == 0, "needs root (the suite runs as root in CI)"))
    func theNightlyJobAsRootLeavesNothingOfRoots() async throws {
        try await withTemporaryDirectory { scratch in
            let mirror = scratch.appendingPathComponent("Mirror")
            try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
            try await runProgram("chown", ["\(Self.nobody):\(Self.nobody)", mirror.path])
            var environment = ProcessInfo.processInfo.environment
            environment["POKESYNC"] = PokesyncCLI.binary.path
            environment["POKESYNC_MIRROR"] = mirror.path
            let night = try await runProgram("/bin/bash", [CronJobTests.script.path], environment: environment)
            #expect(night.status == 77, "\(night.stderr)")
            #expect(night.stderr.contains("belongs to nobody") && night.stderr.contains("runuser -u nobody -- "), "\(night.stderr)")
            #expect(Self.rootOwned(mirror).isEmpty, "root-owned: \(Self.rootOwned(mirror))")
            #expect(!FileManager.default.fileExists(atPath: mirror.appendingPathComponent("logs").path))
        }
    }
}
