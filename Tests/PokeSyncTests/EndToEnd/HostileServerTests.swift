import Foundation
import Testing
@testable import PokeSyncCore

/// `full` against `Tests/Support/hostile_server.py`: the real binary, measured from /proc while it runs.
@Suite("Hostile server, end to end", .serialized)
struct HostileServerTests {
    /// The cap asserted on peak RSS; the 16 MB body cap plus the binary itself, with room.
    static let memoryCeiling = 200 << 20

    /// Runs `pokesync full` against `server` and watches it for at most `limit`.
    static func full(_ server: HostileServer, in scratch: URL, _ extra: [String] = [], mirrorJSON: String? = nil,
                     limit: Duration = .seconds(120)) async throws -> (PokesyncCLI.Result, ChildUsage) {
        let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
        if let mirrorJSON {
            try FileManager.default.createDirectory(at: cli.mirror, withIntermediateDirectories: true)
            try mirrorJSON.write(to: cli.mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
        }
        let child = cli.start(["full", "--source", server.baseURL.absoluteString] + extra)
        try child.process.run()
        let pid = child.process.processIdentifier
        let usage = await ChildUsage.watch(pid, for: limit) { child.process.isRunning }
        if child.process.isRunning {
            kill(pid, SIGKILL)  // past the limit: the test fails below, but must not hang
        }
        child.process.waitUntilExit()
        return (child.result(), usage)
    }

    @Test("a gzip bomb (2 GiB decoded, 2 MB on the wire) is refused within the memory ceiling")
    func gzipBomb() async throws {
        try await withTemporaryDirectory { scratch in
            try await withHostileServer(.gzipBomb) { server in
                let (result, usage) = try await Self.full(server, in: scratch, ["--sprites", "none"])
                #expect(usage.peakResidentBytes < Self.memoryCeiling, "peak RSS \(usage.peakResidentBytes >> 20) MB")
                #expect(result.status == 1, "\(result.stderr)")
                #expect(result.stderr.contains("pokemon/1"))
                #expect(result.stderr.contains("body larger than 16777216 bytes, refused"))
                #expect(result.stderr.contains("no version published"))
            }
        }
    }

    @Test("a 1 GiB body without Content-Length is refused within the memory ceiling")
    func bodyWithoutLength() async throws {
        try await withTemporaryDirectory { scratch in
            try await withHostileServer(.noLength) { server in
                let (result, usage) = try await Self.full(server, in: scratch, ["--sprites", "none"])
                #expect(usage.peakResidentBytes < Self.memoryCeiling, "peak RSS \(usage.peakResidentBytes >> 20) MB")
                #expect(result.status == 1, "\(result.stderr)")
                #expect(result.stderr.contains("pokemon/1"))
                #expect(result.stderr.contains("body larger than 16777216 bytes, refused"))
            }
        }
    }

    @Test("a 100 MB sprite without Content-Length is refused well under its size")
    func hugeSprite() async throws {
        try await withTemporaryDirectory { scratch in
            try await withHostileServer(.hugeSprite) { server in
                let (result, usage) = try await Self.full(
                    server, in: scratch, ["--sprites", "default", "--sprite-source", server.spriteBaseURL.absoluteString])
                // The sprite alone is 100 MB: holding it, or queueing it, would cross this line.
                #expect(usage.peakResidentBytes < 100 << 20, "peak RSS \(usage.peakResidentBytes >> 20) MB")
                // Published all the same, the sprite left for the next run (exit 2 says so).
                #expect(result.status == 2, "\(result.stderr)")
                #expect(result.stdout.contains("larger than 8388608 bytes"), "\(result.stdout)")
            }
        }
    }

    @Test("a server trickling a byte a second fails the run within its deadlines, naming the resource")
    func trickle() async throws {
        try await withTemporaryDirectory { scratch in
            try await withHostileServer(.trickle) { server in
                // --timeout 2: each attempt ends at its 8 s deadline, and 8 s without a document
                // (the other nine came at once) stops the run as the source's silence (exit 69).
                let (result, usage) = try await Self.full(
                    server, in: scratch, ["--sprites", "none", "--timeout", "2"],
                    mirrorJSON: #"{"retry": {"attempts": 2, "base_delay_ms": 10}}"#, limit: .seconds(60))
                #expect(usage.wallSeconds < 40, "ran \(usage.wallSeconds) s")
                #expect(result.status == 69, "\(result.stderr)")
                #expect(result.stderr.contains("answered the lists and 9 document(s), then no document for 8 s, "
                                               + "with 1 request (pokemon/1) outstanding"), "\(result.stderr)")
                let versions = try await PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror")).run(["versions"])
                #expect(versions.stdout.contains("no versions yet"))
            }
        }
    }

    @Test("waiting on a silent server costs little CPU")
    func silentServer() async throws {
        try await withTemporaryDirectory { scratch in
            try await withHostileServer(.silent) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let child = cli.start(["full", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                try child.process.run()
                let pid = child.process.processIdentifier
                defer {
                    kill(pid, SIGKILL)
                    child.process.waitUntilExit()
                }
                try await Task.sleep(for: .seconds(1))  // the four list requests are sent and waiting
                let before = ChildUsage.cpuSeconds(pid) ?? 0
                let start = ContinuousClock.now
                try await Task.sleep(for: .seconds(3))
                let used = (ChildUsage.cpuSeconds(pid) ?? 0) - before
                let elapsed = ContinuousClock.now - start
                let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                #expect(child.process.isRunning, "\(child.result().stderr)")
                // FoundationNetworking spun here (a write source never cancelled fired about
                // 5,000 times a second a socket until the first response); pokesync's own
                // libcurl driver sleeps in curl_multi_poll.
                #expect(used < 0.2 * wall, "\(used) s of CPU in \(wall) s")
            }
        }
    }

    @Test("an attempt ends at its deadline while bytes keep trickling in, as a retryable timeout")
    func attemptDeadline() async throws {
        try await withHostileServer(.trickle) { server in
            // The 3 s inactivity timeout never fires (a byte a second); the 2 s deadline does.
            let client = HTTPClient(configuration: HTTPClientConfiguration(
                timeout: 3, deadline: 2, retry: RetryPolicy(maxAttempts: 1)))
            defer { client.invalidate() }
            let url = server.baseURL.appendingPathComponent("pokemon/1/")
            let start = ContinuousClock.now
            let error = await #expect(throws: HTTPError.self) { try await client.send(url) }
            // A hang detector, not a timing target: without the deadline a trickle never ends.
            // Alone this takes about 2.4 s; in the full suite other tests can hold the
            // cooperative threads for seconds before this task resumes (10.4 s seen once).
            #expect(ContinuousClock.now - start < .seconds(30))
            guard case .transport(let failed, let code, let message, _) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(failed == url)
            #expect(code == URLError.timedOut.rawValue)
            #expect(message == "no complete answer within 2 s")
            #expect(error?.isRetryable == true)
        }
    }
}
