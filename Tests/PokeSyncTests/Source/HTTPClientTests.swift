import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

@Suite("HTTP client")
struct HTTPClientTests {
    /// Quick retries for tests: 10 ms backoff. The timeout is long on purpose: in a full
    /// run, other suites' blocking work holds Swift's cooperative threads (two on two cores)
    /// for tens of seconds, and a task awaiting an answer resumes only then, so a redirect's
    /// second hop could find the attempt's deadline (4 timeouts) spent. Tests of timeouts
    /// pass their own.
    static func client(maxAttempts: Int = 5, maxDelay: Duration = .milliseconds(50), timeout: Int = 120,
                       maxBodyBytes: Int = 16 << 20, rate: Double? = nil,
                       redirects: RedirectPolicy = .sameOriginOnly) -> HTTPClient {
        HTTPClient(configuration: HTTPClientConfiguration(
            userAgent: "pokesync-tests/1.0", timeout: timeout, maxBodyBytes: maxBodyBytes, requestsPerSecond: rate,
            retry: RetryPolicy(maxAttempts: maxAttempts, baseDelay: .milliseconds(10), maxDelay: maxDelay),
            redirects: redirects))
    }

    static func json(_ response: HTTPResponse) throws -> [String: String] {
        guard response.status == 200,
              let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else {
            throw HTTPError.invalidBody(url: response.url, reason: "not a JSON object (\(response.body.count) bytes)")
        }
        return object.mapValues { "\($0)" }
    }

    @Test("sends the User-Agent and Accept headers, and decodes gzip")
    func headersAndGzip() async throws {
        try await withTestServer { server async throws in
            let client = Self.client()
            let echoed = try await client.fetch(server.url("/headers"), validate: Self.json)
            #expect(echoed["user-agent"] == "pokesync-tests/1.0")
            #expect(echoed["accept"] == "application/json")
            #expect(echoed["accept-encoding"]?.contains("gzip") == true)
            let gzipped = try await client.send(server.url("/gzip"))
            #expect(gzipped.header("Content-Encoding") == "gzip")
            #expect(try Self.json(gzipped)["name"] == "pikachu")
        }
    }

    @Test("retries 503 until it succeeds, counting attempts")
    func retriesUntilSuccess() async throws {
        try await withTestServer { server async throws in
            let client = Self.client()
            let body = try await client.fetch(server.url("/flaky/2/a"), validate: Self.json)
            #expect(body["id"] == "25")
            #expect(try await server.requests("/flaky/2/a").count == 3)
            let stats = client.statistics
            #expect(stats.requestsSent == 3 && stats.retries == 2)
            #expect(stats.responsesByStatus == [503: 2, 200: 1])
        }
    }

    @Test("gives up after maxAttempts with one clear line")
    func givesUp() async throws {
        try await withTestServer { server async throws in
            let url = server.url("/flaky/10/b")
            let error = await #expect(throws: HTTPError.self) {
                try await Self.client(maxAttempts: 3).fetch(url, validate: Self.json)
            }
            #expect(error == .status(url: url, status: 503, attempts: 3))
            #expect(error?.description == "GET \(url.absoluteString): HTTP 503 after 3 attempts")
            #expect(error?.exitStatus == .unavailable)
            #expect(try await server.requests("/flaky/10/b").count == 3)
        }
    }

    @Test("404, 304 and other 4xx are results, sent once")
    func clientErrorsAreResults() async throws {
        try await withTestServer { server async throws in
            let client = Self.client()
            let status = { @Sendable (response: HTTPResponse) in response.status }
            #expect(try await client.fetch(server.url("/404"), validate: status) == 404)
            #expect(try await client.fetch(server.url("/status/400"), validate: status) == 400)
            let first = try await client.send(server.url("/304"))
            let etag = try #require(first.header("etag"))
            let second = try await client.send(server.url("/304"), headers: ["If-None-Match": etag])
            #expect(first.status == 200 && second.status == 304 && second.body.isEmpty)
            for path in ["/404", "/status/400"] {
                #expect(try await server.requests(path).count == 1)
            }
        }
    }

    @Test("a body over the cap is refused, with or without Content-Length", arguments: [true, false])
    func bodyCap(withLength: Bool) async throws {
        try await withTestServer { server async throws in
            let client = Self.client(maxBodyBytes: 1 << 20)
            let bigPath = "/big?size=\(4 << 20)&length=\(withLength ? 1 : 0)", big = server.url(bigPath)
            await #expect(throws: HTTPError.bodyTooLarge(url: big, limit: 1 << 20)) {
                try await client.fetch(big) { $0.body.count }
            }
            #expect(try await server.requests(bigPath).count == 1)  // not retried
            let small = try await client.send(server.url("/big?size=\(1 << 20)&length=\(withLength ? 1 : 0)"))
            #expect(small.body.count == 1 << 20)
        }
    }

    @Test("follows the same-host 301 to the slashed path")
    func sameHostRedirect() async throws {
        try await withTestServer { server async throws in
            let response = try await Self.client().send(server.url("/redirect-same"))
            #expect(response.status == 200)
            #expect(response.url == server.url("/redirect-same/"))
            #expect(try await server.requests().map(\.path) == ["/redirect-same", "/redirect-same/"])
        }
    }

    @Test("refuses a redirect to another host without contacting it")
    func foreignRedirect() async throws {
        try await withTestServer { server async throws in
            try await withTestServer(bind: "127.0.0.2") { foreign async throws in
                let target = foreign.url("/ok").absoluteString
                let url = server.url("/redirect-foreign?to=\(target)")
                await #expect(throws: HTTPError.redirectRefused(from: url, to: foreign.url("/ok"))) {
                    try await Self.client().fetch(url, validate: Self.json)
                }
                #expect(try await foreign.requests().isEmpty)
                // The same redirect, allowed, does reach the second server: the check above can see contact.
                let allowing = Self.client(redirects: .allowingHosts(["127.0.0.2"]))
                #expect(try await allowing.fetch(url, validate: Self.json)["name"] == "pikachu")
                #expect(try await foreign.requests("/ok").count == 1)
            }
        }
    }

    @Test("stops after 5 redirect hops")
    func redirectLoop() async throws {
        try await withTestServer { server async throws in
            let url = server.url("/redirect-loop/0")
            let error = await #expect(throws: HTTPError.self) {
                // One attempt with time to spare: a hop timed out on a loaded machine would
                // otherwise be retried, and the count below would hold the retry's hops too.
                try await Self.client(maxAttempts: 1, timeout: 120).fetch(url, validate: Self.json)
            }
            #expect(error?.isRetryable == false)
            guard case .transport(_, let code, _, _) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(code == URLError.httpTooManyRedirects.rawValue)
            #expect(try await server.requests().count == 1 + RedirectPolicy.maxHops)
        }
    }

    @Test("honours Retry-After on 429 even above maxDelay")
    func retryAfter() async throws {
        try await withTestServer { server async throws in
            let client = Self.client(maxDelay: .milliseconds(20))
            #expect(try await client.fetch(server.url("/429/c"), validate: Self.json)["id"] == "25")
            let arrivals = try await server.requests("/429/c").map(\.time)
            #expect(arrivals.count == 2)
            #expect(arrivals[1] - arrivals[0] >= 0.9)  // server clock: the retry waited out "Retry-After: 1"
            #expect(client.statistics.retries == 1)
        }
    }

    @Test("a 200 cut short is retried through validate, then reported")
    func truncatedBody() async throws {
        try await withTestServer { server async throws in
            let client = Self.client(maxAttempts: 3)
            // No Content-Length and an early close: the transfer reports a 200 with short data.
            let short = try await client.send(server.url("/truncated"))
            #expect(short.status == 200 && short.body.count < 40)
            await #expect(throws: HTTPError.self) {
                try await client.fetch(server.url("/truncated"), validate: Self.json)
            }
            #expect(try await server.requests("/truncated").count == 1 + 3)
        }
    }

    @Test("a reset connection is a retryable transport error")
    func resetConnection() async throws {
        try await withTestServer { server async throws in
            let client = Self.client(maxAttempts: 2)
            let error = await #expect(throws: HTTPError.self) {
                try await client.fetch(server.url("/reset"), validate: Self.json)
            }
            guard case .transport(_, _, _, let attempts) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(attempts == 2 && error?.isRetryable == true)
            #expect(error?.description.hasSuffix("after 2 attempts") == true)
            #expect(try await server.requests("/reset").count == 2)
        }
    }

    @Test("a body shorter than its Content-Length is retried and named in libcurl's words")
    func shortBody() async throws {
        try await withTestServer { server async throws in
            let url = server.url("/short")
            let error = await #expect(throws: HTTPError.self) {
                try await Self.client(maxAttempts: 2).fetch(url, validate: Self.json)
            }
            #expect(error?.isRetryable == true)
            #expect(error?.description == "GET \(url.absoluteString): truncated body (transfer closed with 989 bytes "
                    + "remaining to read) after 2 attempts")
            #expect(try await server.requests("/short").count == 2)
        }
    }

    @Test("a silent server times out")
    func timeout() async throws {
        try await withTestServer { server async throws in
            let error = await #expect(throws: HTTPError.self) {
                try await Self.client(timeout: 1).send(server.url("/slow?seconds=5"))
            }
            guard case .transport(_, let code, _, _) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(code == URLError.timedOut.rawValue)
        }
    }

    @Test("the rate cap spaces requests out")
    func rateCap() async throws {
        try await withTestServer { server async throws in
            let client = Self.client(rate: 20)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<10 {
                    group.addTask { _ = try await client.fetch(server.url("/ok?n=\(index)"), validate: Self.json) }
                }
                try await group.waitForAll()
            }
            let arrivals = try await server.requests().map(\.time).sorted()
            #expect(arrivals.count == 10)
            // 10 requests at 20/s: 9 gaps of 50 ms. Loosely: at least 70 % of 450 ms.
            #expect(arrivals.last! - arrivals.first! >= 0.7 * 9 / 20)
        }
    }

    @Test("cancelling the awaiting task cancels the request")
    func cancellation() async throws {
        try await withTestServer { server async throws in
            // The server holds the answer for 10 minutes and the client waits as long: however
            // late the cancel comes (the cooperative threads may be held by other suites), only
            // the cancel can end this request, and the server sees its connection close.
            let client = Self.client(timeout: 600)
            let fetching = Task { try await client.fetch(server.url("/slow?seconds=600"), validate: Self.json) }
            try await waitUntil { try await !server.requests("/slow?seconds=600").isEmpty }
            fetching.cancel()
            await #expect(throws: CancellationError.self) { try await fetching.value }
            try await waitUntil { try await server.requests("/slow?seconds=600").first?.aborted == true }
            #expect(client.statistics.retries == 0)

            let cancelledFirst = Task {
                while !Task.isCancelled { await Task.yield() }
                return try await client.fetch(server.url("/ok?never"), validate: Self.json)
            }
            cancelledFirst.cancel()
            await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
            #expect(try await server.requests("/ok?never").isEmpty)
        }
    }

    @Test("a cancellation at any moment ends the call: a value or CancellationError, never a hang")
    func cancellationAtAnyMoment() async throws {
        try await withTestServer { server async throws in
            let client = Self.client()
            var outcomes = (values: 0, cancelled: 0)
            for round in 0..<200 {
                let fetching = Task { try await client.fetch(server.url("/ok?r=\(round)"), validate: Self.json) }
                for _ in 0..<(round % 20) { await Task.yield() }
                fetching.cancel()
                do {
                    _ = try await fetching.value
                    outcomes.values += 1
                } catch is CancellationError {
                    outcomes.cancelled += 1
                }
            }
            #expect(outcomes.values + outcomes.cancelled == 200)
            #expect(outcomes.cancelled > 0)
        }
    }

    @Test("an invalidated client fails at once instead of hanging")
    func invalidated() async throws {
        try await withTestServer { server async throws in
            let client = Self.client()
            #expect(try await client.send(server.url("/ok")).status == 200)
            client.invalidate()
            let error = await #expect(throws: HTTPError.self) {
                try await client.fetch(server.url("/ok?late"), validate: Self.json)
            }
            #expect(error?.isRetryable == false)
            #expect(try await server.requests("/ok?late").isEmpty)
        }
    }
}

@Suite("HTTP retry policy")
struct RetryPolicyTests {
    @Test("backoff grows exponentially under maxDelay, with jitter")
    func backoff() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        for _ in 0..<200 {
            #expect(policy.delay(forAttempt: 1, retryAfter: nil) <= .milliseconds(100))
            #expect(policy.delay(forAttempt: 3, retryAfter: nil) <= .milliseconds(400))
            #expect(policy.delay(forAttempt: 40, retryAfter: nil) <= .seconds(1))
        }
        let samples = (0..<200).map { _ in policy.delay(forAttempt: 4, retryAfter: nil) }
        #expect(Set(samples).count > 100)  // full jitter, not a fixed step
    }

    @Test("Retry-After is a floor, honoured above maxDelay up to maxRetryAfter")
    func retryAfterFloor() {
        let policy = RetryPolicy(baseDelay: .milliseconds(10), maxDelay: .seconds(30))
        #expect(policy.delay(forAttempt: 1, retryAfter: .seconds(2)) == .seconds(2))
        #expect(policy.delay(forAttempt: 1, retryAfter: .seconds(90)) == .seconds(90))
        #expect(policy.delay(forAttempt: 1, retryAfter: .seconds(3600)) == .seconds(120))
    }

    @Test("Retry-After parses seconds and HTTP dates")
    func parsing() {
        let now = Date(timeIntervalSince1970: 1_445_412_470)  // 2015-10-21 07:27:50 GMT
        #expect(RetryPolicy.retryAfter(from: "120") == .seconds(120))
        #expect(RetryPolicy.retryAfter(from: " 0 ") == .zero)
        #expect(RetryPolicy.retryAfter(from: "Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter(from: "Wed, 21 Oct 2015 07:27:00 GMT", now: now) == .zero)
        #expect(RetryPolicy.retryAfter(from: "soon") == nil)
        #expect(RetryPolicy.retryAfter(from: "-5") == nil)
    }
}

// MARK: - A real test server on a loopback address

/// One request as the test server recorded it.
struct LoggedRequest: Decodable {
    var path: String
    var time: Double
    var headers: [String: String]
    var aborted: Bool?
}

/// A running `Tests/Support/http_test_server.py`.
struct TestServer: Sendable {
    let base: URL

    func url(_ pathAndQuery: String) -> URL {
        URL(string: pathAndQuery, relativeTo: base)!.absoluteURL
    }

    /// What reached the server so far, optionally only requests for `path` (with its query).
    func requests(_ path: String? = nil) async throws -> [LoggedRequest] {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, _) = try await session.data(from: url("/_log"))
        let all = try JSONDecoder().decode([LoggedRequest].self, from: data)
        return path.map { path in all.filter { $0.path == path } } ?? all
    }
}

/// Starts a test server bound to `address`, runs `body`, and stops the server
/// and removes its folder even when `body` throws.
func withTestServer<R>(bind address: String = "127.0.0.1",
                       _ body: (TestServer) async throws -> R) async throws -> R {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pokesync-http-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let script = TestPaths.support.appendingPathComponent("http_test_server.py")
    let portFile = folder.appendingPathComponent("port"), pidFile = folder.appendingPathComponent("pid")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path, "--bind", address,
                         "--port-file", portFile.path, "--pid-file", pidFile.path]
    try process.run()
    var serverPID: pid_t?
    defer {
        // python3 may be a pyenv shim: stop the server by the pid it wrote, then reap the shim.
        // SIGKILL, because a child of a test process may inherit a mask that blocks SIGTERM.
        kill(serverPID ?? process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
    try await waitUntil { FileManager.default.fileExists(atPath: portFile.path) || !process.isRunning }
    guard let port = try? String(contentsOf: portFile, encoding: .utf8),
          let pid = try? String(contentsOf: pidFile, encoding: .utf8) else {
        throw HTTPError.transport(url: script, code: -1, message: "test server did not start")
    }
    serverPID = pid_t(pid)
    return try await body(TestServer(base: URL(string: "http://\(address):\(port)/")!))
}

/// Polls `condition` every 20 ms, for at most about 20 s: a bounded wait, not a timing check.
func waitUntil(_ condition: () async throws -> Bool) async throws {
    for _ in 0..<1000 {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("condition not met in time")
}
