import Foundation
import Testing
@testable import PokeSyncCore

/// A document source that answers its lists and then goes bad: silent, failing, or sending
/// bodies that are not what they announce. The run stops within its budget (exit 69, a line
/// that names the source and what it did) and the next run resumes; a slow or flaky source
/// that still delivers is never stopped; a body refused at once is asked for once.
@Suite("The document source's silence budget", .serialized)
struct SilentSourceTests {
    static let sample = TestPaths.sample2025

    /// Requests to documents (`/api/v2/{kind}/{id}/...`), not to the root or the lists.
    static func documentRequests(_ stats: StandInStats) -> [String: Int] {
        stats.byPath.filter { $0.key.range(of: #"^/api/v2/[a-z-]+/\d+/"#, options: .regularExpression) != nil }
    }

    /// The sample's documents of the ten default kinds.
    static func sampleDocuments() throws -> Int {
        let api = sample.appendingPathComponent("api/v2")
        var count = 0
        for kind in ResourceKind.defaultKinds {
            let folder = api.appendingPathComponent(kind.apiName)
            count += try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { Int($0) != nil }.count
        }
        return count
    }

    static func arguments(_ server: StandInServer, timeout: Int, concurrency: Int = 4) -> [String] {
        ["full", "--source", server.baseURL.absoluteString, "--sprites", "none",
         "--timeout", String(timeout), "--concurrency", String(concurrency)]
    }

    /// The stand-in serving the sample, its documents answered the `fault` way (`--document-fault`).
    static func badSource(_ fault: String) -> StandInOptions {
        var options = StandInOptions(root: sample)
        options.documentFault = fault
        return options
    }

    static func writeMirrorJSON(_ mirror: URL, _ text: String) throws {
        try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
        try text.write(to: mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
    }

    /// Lists answered, then every document held open without a byte: exit 69 once one
    /// attempt's deadline (4 x --timeout) passes without a document, a line naming the source
    /// and what it did, a bounded number of document requests (never each document five
    /// times); the same command against a good server resumes and publishes.
    @Test func aSourceSilentAfterItsListsStopsTheRunAndTheNextResumes() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let documents = try Self.sampleDocuments()
            let options = Self.badSource("silent")
            let port = try await withStandInServer(options) { server -> Int in
                let run = try await cli.run(Self.arguments(server, timeout: 1))
                #expect(run.status == 69, "\(run.stdout) \(run.stderr)")
                let line = try #require(run.stderr.split(separator: "\n").first { $0.contains("the source ") },
                                        "\(run.stderr)")
                #expect(line.contains("the source \(server.baseURL.absoluteString) answered the lists, then no document for 4 s, with "),
                        "\(line)")
                #expect(line.contains("nothing published") && line.contains("the same command resumes"), "\(line)")
                #expect(!run.stdout.contains("published version"))
                // Bounded: at most the failure run's documents and those in flight, each with
                // its five attempts; far from every document five times.
                let asked = Self.documentRequests(try await server.stats()).values.reduce(0, +)
                #expect(asked > 0)
                #expect(asked <= (20 + 4) * 5, "\(asked) document requests")
                #expect(asked < documents, "\(asked) document requests for \(documents) documents")
                let status = try await cli.run(["status"])
                #expect(status.stdout.contains("69"), "\(status.stdout)")
                return server.port
            }
            var good = StandInOptions(root: Self.sample)
            good.port = port
            try await withStandInServer(good) { server in
                let run = try await cli.run(Self.arguments(server, timeout: 1))
                #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
                #expect((run.stdout + run.stderr).contains("resuming the full run"), "\(run.stdout) \(run.stderr)")
                #expect(run.stdout.contains("published version 1"), "\(run.stdout)")
                // The frontier was kept: each document asked once, and besides them only the ten
                // lists, twice (compared with the interrupted run's, and again at the end).
                let stats = try await server.stats()
                #expect(Self.documentRequests(stats).count == documents)
                #expect(stats.requests == documents + 2 * 10, "\(stats.requests) requests for \(documents) documents")
            }
        }
    }

    /// The nightly job passes the 69 through and its log says what happened and that the
    /// next night resumes; nothing after the sync (prune, export) runs on such a night.
    @Test func theNightlyJobPassesASilentSourcesExitThrough() async throws {
        try await withTemporaryDirectory { scratch in
            let mirror = scratch.appendingPathComponent("Mirror")
            let options = Self.badSource("silent")
            try await withStandInServer(options) { server in
                try Self.writeMirrorJSON(mirror, #"{"source": "\#(server.baseURL.absoluteString)", "sprites": "none"}"#)
                var environment = ProcessInfo.processInfo.environment
                environment["POKESYNC"] = PokesyncCLI.binary.path
                environment["POKESYNC_MIRROR"] = mirror.path
                let script = TestPaths.packageRoot.appendingPathComponent("cron/pokesync-nightly.sh")
                let night = try await runProgram("/bin/bash", [script.path, "--timeout", "1"], environment: environment)
                #expect(night.status == 69, "\(night.stderr)")
                let logs = try FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("logs").path)
                    .filter { $0.hasPrefix("nightly-") }
                let log = try String(contentsOf: mirror.appendingPathComponent("logs/\(try #require(logs.first))"), encoding: .utf8)
                #expect(log.contains("the source \(server.baseURL.absoluteString) answered the lists, then no document for 4 s"), "\(log)")
                #expect(log.contains("sync failed with exit code 69: the source is unreachable, or stopped answering"), "\(log)")
                #expect(log.contains("the next run resumes it") && log.contains("done, exit 69"), "\(log)")
                #expect(!log.contains("pokesync export"), "\(log)")
                // What cron mails: the log's tail, with the line.
                #expect(night.stderr.contains("answered the lists, then no document"), "\(night.stderr)")
            }
        }
    }

    /// Lists answered, then a 500 for every document: the run stops after a run of 20
    /// documents that failed after their retries, and says which was the last.
    @Test func aSourceFailingEveryDocumentStopsAfterARunOfFailures() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try Self.writeMirrorJSON(cli.mirror, #"{"retry": {"attempts": 2, "base_delay_ms": 10}}"#)
            let options = Self.badSource("500")
            try await withStandInServer(options) { server in
                // A long --timeout: the run of failures stops it, not the clock.
                let run = try await cli.run(Self.arguments(server, timeout: 60))
                #expect(run.status == 69, "\(run.stdout) \(run.stderr)")
                let line = try #require(run.stderr.split(separator: "\n").first { $0.contains("the source ") }, "\(run.stderr)")
                #expect(line.contains("answered the lists, then failed 20 documents in a row (the last: "), "\(line)")
                #expect(line.contains("HTTP 500 after 2 attempts"), "\(line)")
                let asked = Self.documentRequests(try await server.stats()).values.reduce(0, +)
                #expect(asked <= (20 + 4) * 2, "\(asked) document requests")
            }
        }
    }

    /// How the watch counts: failures after retries in a row stop the run; a delivery or an
    /// answer refused at once (the source spoke) starts the count again; a resumed run's line
    /// says what this attempt saw, not lists it never asked for.
    @Test func theWatchCountsFailuresInARowAndSaysWhatTheSourceDid() {
        let url = URL(string: "http://127.0.0.1:9/api/v2/pokemon/1/")!
        let watch = SourceWatch(source: "http://127.0.0.1:9/api/v2", failureLimit: 2, budget: .seconds(3600), listsAnswered: 0)
        for (key, ending) in [("pokemon/1", SourceWatch.Ending.failed("pokemon/1: HTTP 503")), ("pokemon/2", .delivered),
                              ("pokemon/3", .failed("pokemon/3: HTTP 503")),
                              ("pokemon/4", SourceWatch.Ending(HTTPError.badEncoding(url: url, encoding: "gzip"), document: "pokemon/4")),
                              ("pokemon/5", SourceWatch.Ending(HTTPError.status(url: url, status: 503, attempts: 5), document: "pokemon/5"))] {
            watch.begin(key)
            watch.end(key, ending)
            #expect(watch.silence() == nil, "\(key)")
        }
        watch.begin("pokemon/6")
        watch.end("pokemon/6", .failed("pokemon/6: timed out after 5 attempts"))
        let silent = watch.silence()
        #expect(silent?.description.hasPrefix("the source http://127.0.0.1:9/api/v2 answered 1 of the documents left, "
                                               + "then failed 2 documents in a row (the last: pokemon/6: timed out after 5 attempts)") == true,
                "\(silent?.description ?? "nil")")
        #expect(silent?.exitStatus == .unavailable)
    }

    /// A slow source (every answer delayed, the run many times the budget long) that also
    /// fails one request in five: it delivers, so it completes.
    @Test func aSlowFlakySourceIsNotSilent() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try Self.writeMirrorJSON(cli.mirror, #"{"retry": {"attempts": 8, "base_delay_ms": 10}}"#)
            var options = StandInOptions(root: Self.sample)
            options.latencyMilliseconds = 150
            options.faultRate = 0.2
            options.faults = [.internalServerError, .serviceUnavailable, .reset, .truncate]
            try await withStandInServer(options) { server in
                let run = try await cli.run(Self.arguments(server, timeout: 1))
                #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
                #expect(run.stdout.contains("published version 1"), "\(run.stdout)")
                #expect(try await server.stats().faults > 0)
            }
        }
    }

    /// `Content-Encoding: gzip` over plain JSON: each document is refused at once, asked for
    /// once, in words that say so (no transport's error codes, not "truncated"); the run ends
    /// with those documents failed (exit 1), not stopped as silent.
    @Test func aBodyNotInItsAnnouncedEncodingIsRefusedAtOnce() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let documents = try Self.sampleDocuments()
            let options = Self.badSource("bad-gzip")
            try await withStandInServer(options) { server in
                let run = try await cli.run(Self.arguments(server, timeout: 5))
                #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
                let url = server.baseURL.absoluteString + "/pokemon/25/"
                #expect(run.stderr.contains("GET \(url): body not gzip as announced (Content-Encoding: gzip), refused, not retried"),
                        "\(run.stderr)")
                #expect(!run.stderr.contains("URLError"), "\(run.stderr)")
                #expect(!run.stderr.contains("truncated"), "\(run.stderr)")
                #expect(!run.stderr.contains("attempts"), "\(run.stderr)")
                let asked = Self.documentRequests(try await server.stats())
                #expect(asked.count == documents)
                #expect(asked.values.allSatisfy { $0 == 1 }, "\(asked.filter { $0.value != 1 })")
            }
        }
    }
}
