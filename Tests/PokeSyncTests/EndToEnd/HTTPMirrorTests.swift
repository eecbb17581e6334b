import Foundation
import Testing
@testable import PokeSyncCore

/// `full` over real HTTP against the stand-in: content, resumption after SIGKILL, faults.
@Suite("HTTP mirror, end to end", .serialized)
struct HTTPMirrorTests {
    /// A mirror.json with quick retries, so fault tests do not wait half a second a retry.
    static func quickRetries(_ mirror: URL, extra: String = "") throws {
        try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
        try #"{"retry": {"attempts": 8, "base_delay_ms": 10}, "sprites": "none"\#(extra)}"#
            .write(to: mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
    }

    @Test func fullOverHTTPStoresWhatAFolderMirrorStores() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                #expect(full.status == 0, "\(full.stderr)")
                let out = scratch.appendingPathComponent("export")
                #expect(try await cli.run(["export", "--format", "api-data", "--out", out.path]).status == 0)
                try Samples.expectSameJSON(TestPaths.sample2026, out)

                // Same hashes as from the folder: the serving host and formatting do not count.
                let folder = PokesyncCLI(mirror: scratch.appendingPathComponent("FromFolder"))
                #expect(try await folder.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
                let overHTTP = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
                let fromFolder = try Store(layout: MirrorLayout(root: folder.mirror), create: false, readOnly: true)
                #expect(try overHTTP.documents(version: 1) == fromFolder.documents(version: 1))

                // Each document was asked for once, at its slashed path.
                let stats = try await server.stats()
                let documentPaths = stats.byPath.filter { $0.key.range(of: #"^/api/v2/[a-z-]+/\d+/$"#, options: .regularExpression) != nil }
                #expect(documentPaths.count == (try overHTTP.documents(version: 1)).count)
                #expect(documentPaths.values.allSatisfy { $0 == 1 })
            }
        }
    }

    @Test func killedRunResumesWithoutFetchingFinishedDocumentsAgain() async throws {
        try await withTemporaryDirectory { scratch in
            var options = StandInOptions(root: TestPaths.sample2026)
            // Slow enough (74 requests x 400 ms, one at a time) that the kill lands mid-run even
            // when the machine is busy and this polling task waits seconds for a thread.
            options.latencyMilliseconds = 400
            try await withStandInServer(options) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let arguments = ["full", "--source", server.baseURL.absoluteString, "--sprites", "none", "--concurrency", "1"]
                let child = cli.start(arguments)
                try child.process.run()
                // Kill it part way through the documents, whatever it is doing at that moment.
                while try await server.stats().requests < 12 && child.process.isRunning {
                    try await Task.sleep(for: .milliseconds(10))
                }
                kill(child.process.processIdentifier, SIGKILL)
                child.process.waitUntilExit()
                #expect(child.process.terminationReason == .uncaughtSignal, "\(child.result().stderr)")

                // The same command (a higher --concurrency only makes the rest quicker).
                let resumed = try await cli.run(arguments.dropLast() + ["8"])
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(resumed.stderr.contains("resuming the full run"))
                let out = scratch.appendingPathComponent("export")
                #expect(try await cli.run(["export", "--format", "api-data", "--out", out.path]).status == 0)
                try Samples.expectSameJSON(TestPaths.sample2026, out)

                // No document fetched twice beyond the one in flight at the kill.
                let stats = try await server.stats()
                let twice = stats.byPath.filter { $0.key.hasPrefix("/api/v2/") && $0.key.filter({ $0 == "/" }).count == 5 && $0.value > 1 }
                #expect(twice.count <= 1, "fetched again: \(twice)")
                // A list is read three times: by the killed run, by the resumed one to compare
                // (the same state: nothing is re-checked), and at its end.
                #expect(stats.byPath.allSatisfy { $0.value <= ($0.key.filter { $0 == "/" }.count == 4 ? 3 : 2) }, "\(stats.byPath)")
                #expect(!resumed.stderr.contains("re-checking"), "\(resumed.stderr)")
            }
        }
    }

    @Test func tenPercentFaultsStillEndIdentical() async throws {
        try await withTemporaryDirectory { scratch in
            var options = StandInOptions(root: TestPaths.sample2026)
            options.faultRate = 0.1
            options.faults = StandInFault.allCases
            options.seed = 7
            try await withStandInServer(options) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                try Self.quickRetries(cli.mirror)
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString])
                #expect(full.status == 0, "\(full.stderr)")
                #expect(try await server.stats().faults > 0)
                let out = scratch.appendingPathComponent("export")
                #expect(try await cli.run(["export", "--format", "api-data", "--out", out.path]).status == 0)
                try Samples.expectSameJSON(TestPaths.sample2026, out)
            }
        }
    }

    @Test func unreachableListsAreSourceUnavailable() async throws {
        try await withTemporaryDirectory { scratch in
            var options = StandInOptions(root: TestPaths.sample2026)
            options.faultRate = 1
            options.faults = [.serviceUnavailable]
            try await withStandInServer(options) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                try FileManager.default.createDirectory(at: cli.mirror, withIntermediateDirectories: true)
                try #"{"retry": {"attempts": 2, "base_delay_ms": 5}}"#
                    .write(to: cli.mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                // The lists themselves fail: the source is unavailable.
                #expect(full.status == 69, "\(full.stderr)")
                #expect(full.stderr.contains("503"))
                #expect(try await cli.run(["versions"]).stdout.contains("no versions yet"))
            }
        }
    }

    @Test func statusShowsAnInterruptedRun() async throws {
        try await withTemporaryDirectory { scratch in
            var options = StandInOptions(root: TestPaths.sample2026)
            options.latencyMilliseconds = 400  // the kill lands mid-run even on a busy machine
            try await withStandInServer(options) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let child = cli.start(["full", "--source", server.baseURL.absoluteString, "--sprites", "none", "--concurrency", "1"])
                try child.process.run()
                // Ten lists, then a few documents.
                while try await server.stats().requests < 14 && child.process.isRunning {
                    try await Task.sleep(for: .milliseconds(10))
                }
                kill(child.process.processIdentifier, SIGKILL)
                child.process.waitUntilExit()
                let status = try await cli.run(["status", "--json"])
                #expect(status.status == 0)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
                let run = try #require(object["run"] as? [String: Any])
                #expect(run["mode"] as? String == "full")
                #expect(run["active"] as? Bool == false)
                let documents = try #require(run["documents"] as? [String: Int])
                #expect(documents["done"]! > 0 && documents["done"]! < documents["total"]!)
                #expect(try await cli.run(["status"]).stdout.contains("interrupted"))
            }
        }
    }
}

@Suite("Interrupted sync, end to end", .serialized)
struct InterruptedSyncTests {
    @Test func killedSyncSurvivesAPruneAndResumes() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let port = try await withStandInServer(root: TestPaths.sample2025) { server -> Int in
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                #expect(full.status == 0)
                return server.port
            }
            var options = StandInOptions(root: TestPaths.sample2026)
            options.port = port
            options.latencyMilliseconds = 400  // the kill lands mid-run even on a busy machine
            try await withStandInServer(options) { server in
                let arguments = ["sync", "--source", server.baseURL.absoluteString, "--sprites", "none", "--concurrency", "1"]
                let child = cli.start(arguments)
                try child.process.run()
                // Killed once a few documents are in: with ten kinds, ten requests can all
                // be lists, and a kill then leaves nothing for the resumed run to skip.
                while try await server.stats().byPath.keys.filter({ $0.filter { $0 == "/" }.count == 5 }).count < 5
                        && child.process.isRunning {
                    try await Task.sleep(for: .milliseconds(10))
                }
                kill(child.process.processIdentifier, SIGKILL)
                child.process.waitUntilExit()

                // Pruning now must keep what the interrupted run already fetched.
                #expect(try await cli.run(["prune", "--keep", "1"]).status == 0)
                try await server.resetStats()
                let resumed = try await cli.run(arguments.dropLast() + ["8"])
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(resumed.stderr.contains("resuming the sync run"))
                #expect(resumed.stdout.contains("published version 2"))
                let refetched = try await server.stats().byPath.filter { $0.key.filter({ $0 == "/" }).count == 5 }
                let documents = try Samples.documents(TestPaths.sample2026).count  // 70
                #expect(refetched.count < documents, "the resumed sync fetched everything again")
            }
            let out = scratch.appendingPathComponent("export")
            #expect(try await cli.run(["export", "--format", "api-data", "--out", out.path]).status == 0)
            try Samples.expectSameJSON(TestPaths.sample2026, out)
        }
    }
}
