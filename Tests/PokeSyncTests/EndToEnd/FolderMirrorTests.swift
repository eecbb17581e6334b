import Foundation
import Testing
@testable import PokeSyncCore

/// `full`, `export --format api-data`, exit codes and the lock, with the sample
/// api-data folders as the source (the HTTP path has its own suite).
@Suite("Folder mirror, end to end")
struct FolderMirrorTests {
    @Test func fullFromFolderExportsEqualJSON() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
            #expect(full.status == 0, "\(full.stderr)")
            #expect(full.stdout.contains("published version 1"))
            let out = scratch.appendingPathComponent("export")
            let export = try await cli.run(["export", "--format", "api-data", "--out", out.path])
            #expect(export.status == 0, "\(export.stderr)")
            try Samples.expectSameJSON(TestPaths.sample2025, out)

            // And the export crawls back to the same content.
            let again = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror2"))
            #expect(try await again.run(["full", "--source", out.path, "--sprites", "none"]).status == 0)
            let first = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true).documents(version: 1)
            let second = try Store(layout: MirrorLayout(root: again.mirror), create: false, readOnly: true).documents(version: 1)
            #expect(first == second)
        }
    }

    @Test func badSourceIsUnavailable() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let missing = try await cli.run(["full", "--source", scratch.appendingPathComponent("nowhere").path])
            #expect(missing.status == 69)
            #expect(missing.stderr.hasPrefix("pokesync: ") && missing.stderr.split(separator: "\n").count == 1)
            let scheme = try await cli.run(["full", "--source", "ftp://example.com/api/v2"])
            #expect(scheme.status == 64)
            let option = try await cli.run(["full", "--bogus"])
            #expect(option.status == 64)
            #expect(option.stderr.contains("--bogus"))
        }
    }

    @Test func corruptStoreIsBadData() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try FileManager.default.createDirectory(at: cli.mirror, withIntermediateDirectories: true)
            try Data(repeating: 0x5A, count: 8192).write(to: cli.mirror.appendingPathComponent("store.sqlite"))
            for arguments in [["status"], ["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 65, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("store.sqlite") && result.stderr.contains("corrupt"))
                #expect(result.stderr.split(separator: "\n").count == 1)
            }
        }
    }

    @Test func storeOfAnotherShapeIsBadDataInOneLine() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try FileManager.default.createDirectory(at: cli.mirror, withIntermediateDirectories: true)
            try await runTool("sqlite3", [cli.mirror.appendingPathComponent("store.sqlite").path, """
                CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                INSERT INTO meta VALUES ('schema_version', '1');
                CREATE TABLE runs(id INTEGER PRIMARY KEY, something_else TEXT);
                """])
            let result = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func unwritableMirrorIsAnIOError() async throws {
        guard getuid() != 0 else {
            // root writes anywhere; use a path under a regular file instead.
            try await withTemporaryDirectory { scratch in
                let file = scratch.appendingPathComponent("file")
                _ = FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8))
                let cli = PokesyncCLI(mirror: file.appendingPathComponent("Mirror"))
                let result = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
                #expect(result.status == 74, "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1)
            }
            return
        }
        try await withTemporaryDirectory { scratch in
            let mirror = scratch.appendingPathComponent("Mirror")
            try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
            chmod(mirror.path, 0o555)
            defer { chmod(mirror.path, 0o755) }
            let result = try await PokesyncCLI(mirror: mirror).run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
            #expect(result.status == 74)
        }
    }

    @Test func secondProcessIsLockedOutAndStaleLocksDoNotBlock() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            // Hold the lock the way a running pokesync does.
            let lock = try MirrorLock(layout: MirrorLayout(root: cli.mirror))
            let refused = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
            #expect(refused.status == 75)
            #expect(refused.stderr.contains("pid \(getpid())"))
            withExtendedLifetime(lock) {}
        }
        try await withTemporaryDirectory { scratch in
            // A lock file left by a killed process (a dead pid, no flock held) does not block.
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try FileManager.default.createDirectory(at: cli.mirror, withIntermediateDirectories: true)
            try "999999\n".write(to: cli.mirror.appendingPathComponent(".pokesync.lock"), atomically: true, encoding: .utf8)
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
        }
    }

    @Test func helpIsTrueAndUsageErrorsExit64() async throws {
        let cli = PokesyncCLI(mirror: URL(fileURLWithPath: "/nonexistent"))
        let help = try await cli.run(["help"], addMirror: false)
        #expect(help.status == 0)
        for command in ["full", "sync", "status", "versions", "diff", "export", "prune"] {
            #expect(help.stdout.contains(command))
            #expect(try await cli.run([command, "--help"], addMirror: false).status == 0)
        }
        #expect(try await cli.run(["frobnicate"], addMirror: false).status == 64)
        #expect(try await cli.run(["full", "--concurrency", "zero"], addMirror: false).status == 64)
        #expect(try await cli.run(["full", "--sprites", "bogus set"], addMirror: false).status == 64)
    }
}

@Suite("Failed resources, end to end")
struct FailedResourcesTests {
    @Test func documentsFailingAfterRetriesExit1ThenResume() async throws {
        try await withTemporaryDirectory { scratch in
            // A source whose pokemon list names a document that is not there (yet).
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
            let listFile = source.appendingPathComponent("api/v2/pokemon/index.json")
            var list = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: listFile)) as? [String: Any])
            var results = try #require(list["results"] as? [[String: Any]])
            results.append(["name": "missingno", "url": "/api/v2/pokemon/99999/"])
            list["results"] = results
            list["count"] = results.count
            try JSONSerialization.data(withJSONObject: list).write(to: listFile)

            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let failed = try await cli.run(["full", "--source", source.path, "--sprites", "none"])
            #expect(failed.status == 1)
            #expect(failed.stderr.contains("pokemon/99999"))
            #expect(failed.stderr.contains("no version published"))
            #expect(try await cli.run(["versions"]).stdout.contains("no versions yet"))

            // Upstream fixes it: the same command resumes and fetches only what is missing.
            let documentFolder = source.appendingPathComponent("api/v2/pokemon/99999")
            try FileManager.default.createDirectory(at: documentFolder, withIntermediateDirectories: true)
            let pikachu = try Data(contentsOf: source.appendingPathComponent("api/v2/pokemon/25/index.json"))
            let patched = String(decoding: pikachu, as: UTF8.self).replacingOccurrences(of: "\"id\": 25,", with: "\"id\": 99999,")
            try patched.write(to: documentFolder.appendingPathComponent("index.json"), atomically: true, encoding: .utf8)
            let resumed = try await cli.run(["full", "--source", source.path, "--sprites", "none"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stderr.contains("resuming"))
            #expect(resumed.stdout.contains("documents: 1 fetched"))
        }
    }
}
