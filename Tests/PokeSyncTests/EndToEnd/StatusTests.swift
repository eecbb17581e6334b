import Foundation
import Testing

/// `status` says what happened: how a run that stopped ended, a mirror path that is not
/// a folder, and every refused sprite; a publish whose diff failed says it published.
@Suite("Status and run endings, end to end")
struct StatusTests {
    @Test func aMirrorPathThatIsAFileOrMissingIsAUsageError() async throws {
        try await withTemporaryDirectory { scratch in
            let file = scratch.appendingPathComponent("file")
            try Data("x".utf8).write(to: file)
            for path in [file, scratch.appendingPathComponent("nowhere")] {
                for arguments in [["status"], ["status", "--json"]] {
                    let result = try await PokesyncCLI(mirror: path).run(arguments)
                    #expect(result.status == 64, "\(path.lastPathComponent): \(result.stderr)")
                    #expect(result.stderr.contains(path.path) && result.stderr.split(separator: "\n").count == 1)
                    #expect(result.stdout.isEmpty)
                }
            }
            // An existing folder without a store is a mirror with no versions yet.
            let empty = try await PokesyncCLI(mirror: scratch).run(["status"])
            #expect(empty.status == 0 && empty.stdout.contains("no versions yet"))
        }
    }

    @Test func aRunThatStoppedSaysHowNotInterrupted() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.copyItem(at: TestPaths.sample2025, to: source)
            let broken = TestPaths.document(in: source, kind: "pokemon", id: 25)
            try Data(#"{"id": 25, "name": "#.utf8).write(to: broken)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let failed = try await cli.run(["full", "--source", source.path, "--sprites", "none"])
            #expect(failed.status == 1, "\(failed.stderr)")
            let status = try await cli.run(["status"])
            #expect(status.stdout.contains("failed: 1 resource(s) still failed after retries (exit 1)"), "\(status.stdout)")
            #expect(!status.stdout.contains("interrupted"))
            let json = try await #require(try JSONSerialization.jsonObject(with: Data(cli.run(["status", "--json"]).stdout.utf8)) as? [String: Any])
            let run = try #require(json["run"] as? [String: Any])
            #expect(run["state"] as? String == "stopped")
            #expect((run["ended"] as? [String: Any])?["status"] as? Int == 1)

            // The source gone: 69, said as such.
            try FileManager.default.moveItem(at: source, to: scratch.appendingPathComponent("moved"))
            let gone = try await cli.run(["full", "--source", source.path, "--sprites", "none"])
            #expect(gone.status == 69, "\(gone.stderr)")
            #expect(try await cli.run(["status"]).stdout.contains("source unavailable"))

            // Back and mended: it resumes and publishes; no run is left to describe.
            try FileManager.default.moveItem(at: scratch.appendingPathComponent("moved"), to: source)
            try FileManager.default.copyItem(at: TestPaths.document(in: TestPaths.sample2025, kind: "pokemon", id: 25), to: broken.appendingPathExtension("new"))
            try FileManager.default.removeItem(at: broken)
            try FileManager.default.moveItem(at: broken.appendingPathExtension("new"), to: broken)
            #expect(try await cli.run(["full", "--source", source.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["status"]).stdout.contains("none in progress"))
        }
    }

    @Test func aDiffThatCannotBeWrittenSaysTheVersionIsPublishedAndIsFinishedNextRun() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            // A file where the diffs folder goes: writing the diff fails (as a full disk would).
            let diffs = cli.mirror.appendingPathComponent("diffs")
            try? FileManager.default.removeItem(at: diffs)
            try Data("in the way".utf8).write(to: diffs)
            let sync = try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(sync.status == 74, "\(sync.stderr)")
            #expect(sync.stderr.split(separator: "\n").last?.hasPrefix("pokesync: published version 2; writing its diff failed: ") == true,
                    "\(sync.stderr)")
            // Progress log lines ("[12:00:05] publishing", every 5 s off a terminal) may come first
            // on a loaded machine; the failure itself is one line.
            let messages = sync.stderr.split(separator: "\n").filter { $0.hasPrefix("pokesync:") }
            #expect(sync.stderr.contains("diffs") && messages.count == 1)
            #expect(sync.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("pokesync:") || $0.hasPrefix("[") })
            #expect(try await cli.run(["versions"]).stdout.contains("2"))

            try FileManager.default.removeItem(at: diffs)
            let next = try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(next.status == 0, "\(next.stderr)")
            #expect(next.stderr.contains("wrote the diff of versions 1 and 2"))
            #expect(next.stdout.contains("no changes since version 2"))
            #expect(FileManager.default.fileExists(atPath: diffs.appendingPathComponent("1-2.json").path))
        }
    }
}
