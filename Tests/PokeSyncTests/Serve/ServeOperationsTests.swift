import Foundation
import Testing

/// What an operator reads of a running `serve`: the access log, the metrics and the health
/// check (<doc:PokeServe/Serving>, "Running it"), each read after what a real client did.
@Suite("serve: access log, metrics, health", .serialized)
struct ServeOperationsTests {
    static let promtool: String? = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// nginx's combined format, then the request time.
    static let combined = #"^127\.0\.0\.1 - - \[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}\] "#
        + #""([^"\\]|\\x[0-9A-F]{2})*" [0-9]{3} [0-9]+ "([^"\\]|\\x[0-9A-F]{2})*" "([^"\\]|\\x[0-9A-F]{2})*" [0-9]+\.[0-9]{3}$"#

    /// The file's lines once it holds at least `count` (lines reach it within a moment).
    static func lines(_ file: URL, atLeast count: Int, within seconds: Double = 5) -> [String] {
        let until = Date().addingTimeInterval(seconds)
        while true {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").map(String.init)
            if lines.count >= count || Date() > until { return lines }
            usleep(20_000)
        }
    }

    @Test func theAccessLogHasALinePerAnswerInNginxCombinedFormat() async throws {
        try await withTemporaryDirectory { folder in
            let log = folder.appendingPathComponent("access.log")
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder), ["--access-log", log.path])
            let document = try server.get("/api/v2/pokemon/25/", headers: ["User-Agent: pokedex-test/1.0", "Referer: http://app.example/"])
            #expect(document.status == 200)
            #expect(try server.get("/api/v2/nope/?q=\"x\"").status == 404)
            #expect(try server.get("/api/v2/pokemon/25/", method: "HEAD").status == 200)
            let malformed = try RawConnection(port: server.port)
            try malformed.send("GET /api/v2/\0 HTTP/1.1\r\n\r\n")
            #expect(try malformed.readResponse()?.status == 400)
            let lines = Self.lines(log, atLeast: 4)
            try #require(lines.count == 4, "\(lines)")
            for line in lines { #expect(line.range(of: Self.combined, options: .regularExpression) != nil, "\(line)") }
            // The workers hand their lines over in turn: find each, whatever the order.
            func line(_ part: String) -> String? { lines.first { $0.contains(part) } }
            #expect(line("\"GET /api/v2/pokemon/25/ HTTP/1.1\" 200 \(document.body.count) \"http://app.example/\" \"pokedex-test/1.0\" ") != nil,
                    "\(lines)")
            #expect(line("\"GET /api/v2/nope/?q=\\x22x\\x22 HTTP/1.1\" 404 23 \"-\" \"-\" ") != nil, "\(lines)")
            // A HEAD sends no body: 0 bytes, as nginx logs it.
            #expect(line("\"HEAD /api/v2/pokemon/25/ HTTP/1.1\" 200 0 ") != nil, "\(lines)")
            // A head the parser refused has no request line to log.
            #expect(line("\"-\" 400 ") != nil, "\(lines)")

            // logrotate's way: mv, SIGHUP, and the next lines go to a new file.
            let rotated = folder.appendingPathComponent("access.log.1")
            try FileManager.default.moveItem(at: log, to: rotated)
            kill(server.child.process.processIdentifier, SIGHUP)
            let until = Date().addingTimeInterval(5)
            while !FileManager.default.fileExists(atPath: log.path) && Date() < until { usleep(20_000) }
            #expect(try server.get("/api/v2/type/10/").status == 200)
            let fresh = Self.lines(log, atLeast: 1)
            #expect(fresh.count == 1 && fresh[0].contains("\"GET /api/v2/type/10/ HTTP/1.1\" 200 "), "\(fresh)")
            #expect(Self.lines(rotated, atLeast: 4).count == 4)
            #expect(await server.stop().status == 0)
        }
    }

    @Test func theAccessLogGoesToStandardOutputWithADash() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder), ["--access-log", "-"])
            #expect(try server.get("/api/v2/stat/1/").status == 200)
            let result = await server.stop()
            #expect(result.status == 0)
            let logged = result.stdout.split(separator: "\n").filter { $0.contains("\"GET /api/v2/stat/1/ HTTP/1.1\" 200 ") }
            #expect(logged.count == 1, "\(result.stdout)")
        }
    }

    /// On a dual-stack socket an IPv4 client arrives as `::ffff:127.0.0.1` and is logged as
    /// `127.0.0.1`; an IPv6 client keeps its own form (`::1`, never `0.0.0.1`).
    @Test func theAccessLogWritesEachClientAddressInItsOwnFamily() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let child = PokesyncCLI(mirror: mirror).start(["serve", "--listen", "[::]:0", "--base-url", "http://localhost",
                                                          "--access-log", "-"])
            try child.process.run()
            defer { if child.process.isRunning { child.process.terminate(); child.process.waitUntilExit() } }
            var port: Int?
            let until = Date().addingTimeInterval(30)
            while port == nil && child.process.isRunning && Date() < until {
                let output = (try? String(contentsOf: child.stdoutFile, encoding: .utf8)) ?? ""
                if let range = output.range(of: #"listening on \[::\]:[0-9]+"#, options: .regularExpression) {
                    port = Int(output[range].split(separator: ":").last!)
                } else {
                    usleep(20_000)
                }
            }
            let listening = try #require(port, "\(child.result().stderr)")
            // One request over each family, by python3's own client (no IPv6 in RawConnection).
            for host in ["127.0.0.1", "[::1]"] {
                let fetch = Process()
                fetch.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                fetch.arguments = ["python3", "-c", "import sys, urllib.request as u; u.build_opener(u.ProxyHandler({})).open(sys.argv[1]).read()",
                                   "http://\(host):\(listening)/api/v2/stat/1/"]
                try fetch.run()
                fetch.waitUntilExit()
                #expect(fetch.terminationStatus == 0, "\(host)")
            }
            kill(child.process.processIdentifier, SIGTERM)
            child.process.waitUntilExit()
            let lines = child.result().stdout.split(separator: "\n").filter { $0.contains("\"GET /api/v2/stat/1/ HTTP/1.1\" 200 ") }
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("127.0.0.1 - - [") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("::1 - - [") }, "\(lines)")
        }
    }

    @Test func anAccessLogThatCannotBeOpenedIsAnIOError() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let result = try await PokesyncCLI(mirror: mirror).run(["serve", "--listen", "127.0.0.1:0", "--access-log",
                                                             folder.appendingPathComponent("missing/access.log").path])
            #expect(result.status == 74)
            #expect(result.stderr.contains("cannot open the access log") && result.stderr.contains("missing/access.log"), "\(result.stderr)")
        }
    }

    /// A log nobody reads (a FIFO whose reader reads nothing: a disk that cannot keep up):
    /// every request is still answered, the lines past the queue are dropped and counted.
    @Test func whenTheLogCannotKeepUpLinesAreDroppedAndCountedNotAnswers() async throws {
        try await withTemporaryDirectory { folder in
            let fifo = folder.appendingPathComponent("access.fifo")
            try #require(mkfifo(fifo.path, 0o600) == 0)
            // A reader that never reads, so the writer blocks once the pipe is full.
            let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
            try #require(reader >= 0)
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder),
                                          ["--access-log", fifo.path, "--metrics-listen", "127.0.0.1:0"])
            let metricsPort = try #require(server.metricsPort)
            // Lines of about 2 kB (long 404 paths): the pipe and the 1 MB queue hold ~550.
            let path = "/api/v2/nope/" + String(repeating: "a", count: 2000) + "/"
            var answered = 0
            for _ in 0 ..< 30 {
                let connection = try RawConnection(port: server.port)
                try connection.send(String(repeating: "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n", count: 50))
                for _ in 0 ..< 50 where try connection.readResponse()?.status == 404 { answered += 1 }
            }
            #expect(answered == 1500)
            let metrics = try Self.scrape(port: metricsPort) {
                Self.value($0, "pokesync_serve_access_log_dropped_lines_total") ?? 0 > 0
                    && Self.value($0, #"pokesync_serve_requests_total{route="document",status="404"}"#) == 1500
            }
            let dropped = try #require(Self.value(metrics, "pokesync_serve_access_log_dropped_lines_total"))
            #expect(dropped >= 500 && dropped < 1500, "\(dropped)")
            // `/api/v2/nope/{name}/` has a document's shape (no such kind: 404).
            #expect(Self.value(metrics, #"pokesync_serve_requests_total{route="document",status="404"}"#) == 1500)
            close(reader)
            #expect(await server.stop().status == 0)
        }
    }

    @Test func theMetricsCountWhatClientsDidInPrometheusFormat() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder),
                                          ["--metrics-listen", "127.0.0.1:0", "--max-connections-per-address", "2"])
            let metricsPort = try #require(server.metricsPort)
            // One keep-alive connection from 127.0.0.1 (a closed one may still count against
            // the address's share of 2 for a moment).
            let client = try RawConnection(port: server.port)
            func get(_ path: String) throws -> RawResponse {
                try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                return try #require(try client.readResponse())
            }
            var bodyBytes = 0
            for _ in 0 ..< 3 { bodyBytes += try get("/api/v2/pokemon/25/").body.count }
            for _ in 0 ..< 2 { #expect(try get("/api/v2/nope/").status == 404) }
            // Two held connections from 127.0.0.2; a third is refused (its share).
            let held = try (0 ..< 2).map { _ in try RawConnection(port: server.port, from: "127.0.0.2") }
            let refused = try ServeProcess.get(port: server.port, "/api/v2/", from: "127.0.0.2")
            #expect(refused.status == 503)
            // The public port does not answer the metrics.
            #expect(try get("/metrics").status == 404)
            #expect(try get("/healthz").status == 404)

            // The two 404s of a list's shape (no kind `nope`), and /metrics and /healthz asked
            // of the public port (no route there).
            let text = try Self.scrape(port: metricsPort) {
                Self.value($0, #"pokesync_serve_requests_total{route="not_found",status="404"}"#) == 2
            }
            #expect(Self.value(text, #"pokesync_serve_requests_total{route="not_found",status="404"}"#) == 2, "\(text)")
            #expect(Self.value(text, #"pokesync_serve_requests_total{route="list",status="404"}"#) == 2, "\(text)")
            #expect(Self.value(text, #"pokesync_serve_requests_total{route="document",status="200"}"#) == 3, "\(text)")
            #expect(Self.value(text, #"pokesync_serve_connections_refused_total{reason="per_address"}"#) == 1)
            #expect(Self.value(text, "pokesync_serve_unavailable_total") == 1)
            #expect(Self.value(text, "pokesync_serve_connections_accepted_total") == 3)
            #expect(Self.value(text, "pokesync_serve_connections_open") == 3)
            #expect(Self.value(text, "pokesync_serve_sent_bytes_total") ?? 0 > Double(bodyBytes))
            #expect(Self.value(text, "pokesync_serve_body_cache_hits_total") ?? 0 >= 2)
            #expect(Self.value(text, "pokesync_serve_body_cache_misses_total") ?? 0 >= 1)
            #expect(Self.value(text, "pokesync_serve_body_cache_bytes") ?? 0 > 0)
            #expect(Self.value(text, "pokesync_serve_version") == 1)
            let published = try #require(Self.value(text, "pokesync_serve_version_published_timestamp_seconds"))
            #expect(abs(published - Date().timeIntervalSince1970) < 600)
            #expect(Self.value(text, "pokesync_serve_store_reopens_total") == 0)
            #expect(Self.value(text, "pokesync_serve_access_log_dropped_lines_total") == 0)
            for reason in ["cap_idle", "cap_slow_head", "head_deadline", "idle_timeout", "stalled_write", "shed"] {
                #expect(Self.value(text, "pokesync_serve_connections_closed_total{reason=\"\(reason)\"}") == 0, "\(reason)")
            }
            if let promtool = Self.promtool {
                let file = folder.appendingPathComponent("metrics.txt")
                try text.write(to: file, atomically: true, encoding: .utf8)
                let check = try await runProgram("/bin/sh", ["-c", "\"$0\" check metrics < \"$1\"", promtool, file.path])
                #expect(check.status == 0, "promtool: \(check.text) \(check.stderr)")
            } else {
                print("skipped: promtool check metrics (promtool missing: apt-get install prometheus)")
            }
            _ = (held, client)
            #expect(await server.stop().status == 0)
        }
    }

    @Test func healthzSaysWhetherTheStoreCanBeReadAndWhichVersionIsServed() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let server = try await ServeProcess(mirror: mirror, ["--metrics-listen", "127.0.0.1:0"])
            let metricsPort = try #require(server.metricsPort)
            let healthy = try ServeProcess.get(port: metricsPort, "/healthz")
            #expect(healthy.status == 200 && healthy.text == #"{"status":"ok","version":1}"#, "\(healthy.text)")
            // The store replaced by a file that is no store: 503, saying why.
            let store = mirror.appendingPathComponent("store.sqlite"), aside = folder.appendingPathComponent("aside.sqlite")
            try FileManager.default.moveItem(at: store, to: aside)
            try Data(repeating: 0x41, count: 8192).write(to: store)
            let broken = try ServeProcess.get(port: metricsPort, "/healthz")
            #expect(broken.status == 503 && broken.text.contains("store.sqlite"), "\(broken.status) \(broken.text)")
            // Gone altogether: 503.
            try FileManager.default.removeItem(at: store)
            #expect(try ServeProcess.get(port: metricsPort, "/healthz").status == 503)
            // Back: 200 again.
            try FileManager.default.moveItem(at: aside, to: store)
            #expect(try ServeProcess.get(port: metricsPort, "/healthz").status == 200)
            #expect(try ServeProcess.get(port: metricsPort, "/nope").status == 404)
            #expect(await server.stop().status == 0)
        }
    }

    /// One address holds at most 16 of the metrics address's 64 connections: the next is
    /// answered 503 at once, so clients that connect and send nothing from one address
    /// leave room for a health check from another.
    @Test func oneAddressCannotHoldTheMetricsAddressAgainstAHealthCheck() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder), ["--metrics-listen", "127.0.0.1:0"])
            let metricsPort = try #require(server.metricsPort)
            var silent: [RawConnection] = []
            for _ in 0 ..< 16 { silent.append(try RawConnection(port: metricsPort)) }
            let refused = try RawConnection(port: metricsPort)
            #expect(try refused.readResponse()?.status == 503)
            #expect(try ServeProcess.get(port: metricsPort, "/healthz", from: "127.0.0.2").status == 200)
            withExtendedLifetime(silent) {}
            #expect(await server.stop().status == 0)
        }
    }

    @Test func theMetricsAddressMustNotBeThePublicOne() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let result = try await PokesyncCLI(mirror: mirror).run(["serve", "--listen", "127.0.0.1:18080", "--metrics-listen", "127.0.0.1:18080"])
            #expect(result.status == 64)
            #expect(result.stderr.contains("--metrics-listen"), "\(result.stderr)")
        }
    }

    /// At the cap, a client just accepted whose request has not been read yet (here: not
    /// sent yet, as on a slow network) is never the connection closed to make room: the
    /// slowest head is.
    @Test func atTheCapAClientWhoseFirstRequestIsUnreadIsNeverClosedToMakeRoom() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder),
                                          ["--max-connections", "4", "--metrics-listen", "127.0.0.1:0"])
            let metricsPort = try #require(server.metricsPort)
            var slow: [RawConnection] = []
            for _ in 0 ..< 3 {
                let connection = try RawConnection(port: server.port)
                try connection.send("GET /api/v2/ HTTP/1.1\r\n")
                slow.append(connection)
            }
            usleep(1_300_000)  // the heads are slow now (past a second)
            // The fourth slot: a client accepted, its request not read (not sent yet).
            let waiting = try RawConnection(port: server.port)
            usleep(300_000)
            // At the cap, another client comes with its whole request: room is made.
            let next = try RawConnection(port: server.port)
            try next.send("GET /api/v2/stat/1/ HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try next.readResponse()?.status == 200)
            // The client that was waiting is answered: not it but a slow head was closed.
            try waiting.send("GET /api/v2/ HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try waiting.readResponse()?.status == 200)
            #expect(slow.filter { $0.closes(within: 1) }.count == 1)
            let text = try Self.scrape(port: metricsPort) { Self.value($0, #"pokesync_serve_connections_closed_total{reason="cap_slow_head"}"#) == 1 }
            #expect(Self.value(text, #"pokesync_serve_connections_closed_total{reason="cap_slow_head"}"#) == 1, "\(text)")
            #expect(Self.value(text, #"pokesync_serve_connections_closed_total{reason="cap_idle"}"#) == 0)
            slow.removeAll()
            #expect(await server.stop().status == 0)
        }
    }

    // MARK: Helpers

    /// `/metrics` from the metrics address, asked again (for up to 5 s) until `until` holds:
    /// a worker hands its counts over once a loop, a moment after its answer is written.
    static func scrape(port: Int, until: (String) -> Bool = { _ in true }) throws -> String {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let response = try ServeProcess.get(port: port, "/metrics")
            #expect(response.status == 200)
            #expect(response.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            if until(response.text) || Date() > deadline { return response.text }
            usleep(50_000)
        }
    }

    /// The value of the sample named `name` (with its labels as written), or nil.
    static func value(_ text: String, _ name: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }
}
