import Foundation
import Testing

/// `pokesync backup DEST`: a copy taken while a reader holds the store (its last version
/// still only in the `-wal`) is whole: restored by a plain `cp -a`, it verifies, lists every
/// version, exports, and its sprites are still hard links into its own objects.
@Suite("Backup: a whole copy of a mirror in use")
struct BackupTests {
    /// A Python child holding a read transaction on `store` (as `serve` or `status` may), so
    /// that the commits after it stay in the `-wal` instead of being checkpointed.
    final class Reader {
        let process = Process()
        let input = Pipe(), output = Pipe()

        init(store: URL) throws {
            process.executableURL = try PythonInterpreter.path.get()
            process.arguments = ["-c", """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute("BEGIN")
                c.execute("SELECT COUNT(*) FROM versions").fetchone()
                print("reading", flush=True)
                sys.stdin.read()
                """, store.path]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            guard line.contains("reading") else { throw CocoaError(.fileReadUnknown) }
        }

        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    @Test func aBackupWhileAReaderHoldsTheStoreRestoresWhole() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(root: TestPaths.sample2025) { server in
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString,
                                        "--sprite-source", server.spriteBaseURL.absoluteString, "--sprites", "default"])
                try #require(full.status == 0, "\(full.stderr)")
            }
            let reader = try Reader(store: cli.mirror.appendingPathComponent("store.sqlite"))
            defer { reader.stop() }
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let sync = try await cli.run(["sync", "--source", server.baseURL.absoluteString,
                                        "--sprite-source", server.spriteBaseURL.absoluteString])
                try #require(sync.status == 0, "\(sync.stderr)")
            }
            // Version 2 is committed but not yet in store.sqlite itself: a plain cp would lose it.
            let wal = cli.mirror.appendingPathComponent("store.sqlite-wal")
            #expect(((try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0) > 0)

            let backup = scratch.appendingPathComponent("backups/night")
            let result = try await cli.run(["backup", backup.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("(version 2)"), "\(result.stdout)")
            reader.stop()
            // Nothing but the backup itself beside it (no staging folder left).
            #expect(try FileManager.default.contentsOfDirectory(atPath: backup.deletingLastPathComponent().path) == ["night"])
            #expect(!FileManager.default.fileExists(atPath: backup.appendingPathComponent("logs").path))

            // Restore = copy back; cp -a keeps the hard links.
            let restored = scratch.appendingPathComponent("Restored")
            try await runProgram("cp", ["-a", backup.path, restored.path])
            let copy = PokesyncCLI(mirror: restored)
            let verify = try await copy.run(["verify", restored.path], addMirror: false)
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            let versions = try await copy.run(["versions"])
            #expect(versions.status == 0 && versions.stdout.contains("2"), "\(versions.stdout)\(versions.stderr)")
            let export = try await copy.run(["export"])
            #expect(export.status == 0, "\(export.stderr)")
            #expect(FileManager.default.fileExists(atPath: restored.appendingPathComponent("bundles/pokedex-2.tar.gz").path))

            // A sprite is one file with two names in the copy too, and not the live mirror's.
            let sprite = try #require(FileManager.default.enumerator(atPath: restored.appendingPathComponent("sprites").path)?
                .compactMap { $0 as? String }.first { $0.hasSuffix(".png") })
            var copied = stat(), live = stat()
            stat(restored.appendingPathComponent("sprites/\(sprite)").path, &copied)
            stat(cli.mirror.appendingPathComponent("sprites/\(sprite)").path, &live)
            #expect(copied.st_nlink >= 2 && copied.st_ino != live.st_ino)
        }
    }

    @Test func aBackupWhileARunHoldsTheLockExits75AndLeavesNothing() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try #require(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            // The lock as a run holds it: flock on the mirror folder, from another process.
            let holder = Process()
            holder.executableURL = try PythonInterpreter.path.get()
            holder.arguments = ["-c", "import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDONLY)\nfcntl.flock(fd, fcntl.LOCK_EX)\n"
                                + "print('locked', flush=True)\nsys.stdin.read()\n", cli.mirror.path]
            let input = Pipe(), output = Pipe()
            holder.standardInput = input
            holder.standardOutput = output
            try holder.run()
            defer { try? input.fileHandleForWriting.close(); holder.waitUntilExit() }
            #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).contains("locked"))

            let backup = scratch.appendingPathComponent("backup")
            let result = try await cli.run(["backup", backup.path])
            #expect(result.status == 75, "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Mirror"])

            // An existing DEST is never replaced.
            try FileManager.default.createDirectory(at: backup, withIntermediateDirectories: false)
            let existing = try await cli.run(["backup", backup.path])
            #expect(existing.status == 64 && existing.stderr.contains("exists"), "\(existing.stderr)")
            // Nor one inside the mirror, which would copy itself.
            try input.fileHandleForWriting.close()
            holder.waitUntilExit()
            let inside = try await cli.run(["backup", cli.mirror.appendingPathComponent("bundles/copy").path])
            #expect(inside.status == 64 && inside.stderr.contains("inside the mirror"), "\(inside.stderr)")
            #expect(!FileManager.default.fileExists(atPath: cli.mirror.appendingPathComponent("bundles").path))
        }
    }
}
