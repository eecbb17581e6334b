import Foundation
import Testing

/// `serve` holds up against its clients (<doc:PokeServe/Serving#What-clients-cannot-do-to-it>): bounded heads,
/// a head deadline, a connection cap, pipelining in order, odd and hostile requests.
@Suite("serve: limits and hostile clients", .serialized)
struct ServeLimitsTests {
    @Test func oversizedAndMalformedHeadsAreRefused() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            let cases: [(String, [UInt8], Int)] = [
                ("70 kB header", Array("GET /api/v2/ HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 70_000))\r\n\r\n".utf8), 431),
                ("70 kB request line", Array("GET /api/v2/?\(String(repeating: "a", count: 70_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 414),
                ("a 10,000-segment path", Array("GET \(String(repeating: "/a", count: 10_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 414),
                ("10,000 headers", Array(("GET /api/v2/ HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 10_000) + "\r\n").utf8), 431),
                ("a NUL", Array("GET /api/v2/\0 HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
                ("a bare CR", Array("GET /api/v2/ HTTP/1.1\r\nHost: x\rY: z\r\n\r\n".utf8), 400),
                ("HTTP/0.9", Array("GET /api/v2/\r\n\r\n".utf8), 400),
                ("HTTP/2 preface", Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), 505),
                ("Transfer-Encoding and Content-Length", Array("GET /api/v2/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n".utf8), 400),
                ("two Content-Lengths", Array("GET /api/v2/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n".utf8), 400),
                ("a folded header", Array("GET /api/v2/ HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n".utf8), 400),
                ("a space before the colon", Array("GET /api/v2/ HTTP/1.1\r\nHost : x\r\n\r\n".utf8), 400),
                ("an authority-form target", Array("CONNECT example.org:443 HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
            ]
            for (name, bytes, status) in cases {
                let connection = try RawConnection(port: server.port)
                try? connection.send(bytes)
                let response = try connection.readResponse()
                #expect(response?.status == status, "\(name): \(response.map { String($0.status) } ?? "no response")")
                #expect(response?.headers["connection"] == "close", "\(name)")
                #expect(connection.closes(within: 5), "\(name)")
            }
            // A request line of exactly 8,192 bytes is within "at most 8 kB".
            let exact = "/api/v2/pokemon/?x=" + String(repeating: "a", count: 8192 - 32)  // GET, the target, HTTP/1.1
            let line = try server.get(exact)
            #expect(line.status == 200, "\(line.status)")
            #expect(try server.get(exact + "a").status == 414)
            // Still serving.
            #expect(try server.get("/api/v2/").status == 200)
            #expect(await server.stop().status == 0)
        }
    }

    @Test func pipelinedRequestsSplitAtEveryByteAreAnsweredInOrder() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            let paths = ["/api/v2/pokemon/25/", "/api/v2/", "/api/v2/nope/", "/api/v2/type/10/", "/api/v2/move/?limit=3", "/api/v2/stat"]
            let requests = paths.map { "GET \($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined()
            // All at once, then one byte at a time.
            for split in [false, true] {
                let connection = try RawConnection(port: server.port)
                if split {
                    for byte in Array(requests.utf8) { try connection.send([byte]) }
                } else {
                    try connection.send(requests)
                }
                var statuses: [Int] = []
                for _ in paths { statuses.append(try #require(try connection.readResponse()).status) }
                #expect(statuses == [200, 200, 404, 200, 200, 301], "split: \(split)")
            }
            // HEADs (of a document and of a 404) then a GET on one connection: no body in the stream for a HEAD.
            let connection = try RawConnection(port: server.port)
            try connection.send("HEAD /api/v2/ HTTP/1.1\r\nHost: x\r\n\r\nHEAD /api/v2/nope/ HTTP/1.1\r\nHost: x\r\n\r\n"
                                + "GET /api/v2/type/ HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try connection.readResponse(head: true)?.status == 200)
            let missing = try connection.readResponse(head: true)
            #expect(missing?.status == 404 && missing?.headers["content-length"] == "23")
            #expect(try connection.readResponse()?.text.hasPrefix("{\"count\":21") == true)
            // HTTP/1.0 closes after the reply unless asked to keep alive; Connection: close closes.
            let old = try RawConnection(port: server.port)
            try old.send("GET /api/v2/ HTTP/1.0\r\n\r\n")
            #expect(try old.readResponse()?.status == 200)
            #expect(old.closes(within: 5))
            let closing = try RawConnection(port: server.port)
            try closing.send("GET /api/v2/ HTTP/1.1\r\nConnection: close\r\n\r\n")
            #expect(try closing.readResponse()?.headers["connection"] == "close")
            #expect(closing.closes(within: 5))
            // A client that sends a request and half-closes still gets its answer.
            let half = try RawConnection(port: server.port)
            try half.send("GET /api/v2/ HTTP/1.1\r\nHost: x\r\n\r\n")
            shutdown(half.descriptor, Int32(SHUT_WR))
            #expect(try half.readResponse()?.status == 200)
            #expect(await server.stop().status == 0)
        }
    }

    /// More pipelined requests than the 16 a connection queues, in one write: the rest wait
    /// in the buffer and are answered once the first 16 are written, without another read.
    @Test func moreThanSixteenPipelinedRequestsAreAllAnswered() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            let connection = try RawConnection(port: server.port)
            connection.setTimeout(5)
            try connection.send(String(repeating: "GET /api/v2/stat/1/ HTTP/1.1\r\nHost: x\r\n\r\n", count: 40))
            let started = Date()
            var answered = 0
            while answered < 40, let response = try connection.readResponse(), response.status == 200 { answered += 1 }
            #expect(answered == 40)
            #expect(Date().timeIntervalSince(started) < 3, "took \(Date().timeIntervalSince(started)) s")
            #expect(await server.stop().status == 0)
        }
    }

    /// A head that fills the buffer and ends in a CR can never complete: it is refused at
    /// once (431), not left to spin the worker until the head deadline.
    @Test func aFullHeadEndingInACRIsRefusedAtOnce() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            var head = Array("GET /api/v2/ HTTP/1.1\r\nX: ".utf8)
            head += [UInt8](repeating: UInt8(ascii: "a"), count: 16 * 1024 - head.count - 1) + [13]
            let connection = try RawConnection(port: server.port)
            connection.setTimeout(5)
            let started = Date()
            try? connection.send(head + [10])
            #expect(try connection.readResponse()?.status == 431)
            #expect(Date().timeIntervalSince(started) < 3)
            #expect(try server.get("/api/v2/").status == 200)
            #expect(await server.stop().status == 0)
        }
    }

    @Test func aSlowHeadIsDroppedAndOthersAreServedMeanwhile() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            let started = Date()
            let slow = try RawConnection(port: server.port)
            let silent = try RawConnection(port: server.port)
            var dropped: TimeInterval?
            // A byte every 2 seconds: the head never completes within the 10 s deadline.
            for byte in Array("GET /api/v2/ HTTP/1.1\r\nHost: x\r\n".utf8) {
                if (try? slow.send([byte])) == nil { dropped = Date().timeIntervalSince(started); break }
                #expect(try server.get("/api/v2/stat/1/").status == 200)
                if slow.closes(within: 2) { dropped = Date().timeIntervalSince(started); break }
            }
            let elapsed = try #require(dropped)
            #expect(elapsed >= 9 && elapsed < 13, "dropped after \(elapsed) s")
            // A connection that never sends anything is dropped by the same deadline.
            #expect(silent.closes(within: 3))
            #expect(await server.stop().status == 0)
        }
    }

    /// Lifts this process's soft descriptor limit to `wanted` if the hard one allows; false if not.
    static func raiseDescriptorLimit(to wanted: Int) -> Bool {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return false }
        if limit.rlim_cur >= rlim_t(wanted) { return true }
        guard limit.rlim_max >= rlim_t(wanted) else { return false }
        limit.rlim_cur = rlim_t(wanted)
        return setrlimit(resource, &limit) == 0
    }

    /// At the cap (lowered by flag) a new client is answered once the longest-idle
    /// connection is closed, or when none is idle the one trickling its head longest; when
    /// every connection has replies being written (clients that do not read), it waits in
    /// the backlog until one closes.
    @Test func atTheConnectionCapIdleAndSlowConnectionsMakeRoomAndWritingOnesMakeNewClientsWait() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder), ["--max-connections", "32"])
            var idle: [RawConnection] = []
            for _ in 0 ..< 32 {
                let connection = try RawConnection(port: server.port)
                try connection.send("GET /api/v2/stat/1/ HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try connection.readResponse()?.status == 200)
                idle.append(connection)
            }
            #expect(try server.get("/api/v2/").status == 200)
            #expect([idle[0], idle[1]].filter { $0.closes(within: 1) }.count == 1)
            idle.removeAll()
            usleep(200_000)
            // 32 connections each part way through a head: the slowest makes room.
            var slow: [RawConnection] = []
            for _ in 0 ..< 32 {
                let connection = try RawConnection(port: server.port)
                try connection.send("GET /api/v2/ HTTP/1.1\r\n")
                slow.append(connection)
            }
            usleep(300_000)
            #expect(try server.get("/api/v2/").status == 200)
            #expect([slow[0], slow[1]].filter { $0.closes(within: 1) }.count == 1)
            slow.removeAll()
            usleep(200_000)
            // 32 connections whose large replies wait for clients that do not read.
            var writing: [RawConnection] = []
            for _ in 0 ..< 32 {
                let connection = try RawConnection(port: server.port, receiveBuffer: 2048)
                try connection.send("GET /api/v2/pokemon/133/ HTTP/1.1\r\nHost: x\r\n\r\n")
                writing.append(connection)
            }
            usleep(300_000)
            let waiting = try RawConnection(port: server.port)
            try waiting.send("GET /api/v2/ HTTP/1.1\r\nHost: x\r\n\r\n")
            waiting.setTimeout(1)
            #expect(try waiting.readResponse() == nil)
            writing.removeLast(4)
            waiting.setTimeout(5)
            #expect(try waiting.readResponse()?.status == 200)
            writing.removeAll()
            #expect(await server.stop().status == 0)
        }
    }
}

@Suite("serve: more hostile clients", .serialized)
struct ServeMoreLimitsTests {
    @Test func aClientThatNeverReadsDoesNotStopOthers() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            var stuck: [RawConnection] = []
            for _ in 0 ..< 20 {
                let connection = try RawConnection(port: server.port)
                var small: Int32 = 2048
                setsockopt(connection.descriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
                try connection.send(String(repeating: "GET /api/v2/pokemon/25/ HTTP/1.1\r\nHost: x\r\n\r\n", count: 30))
                stuck.append(connection)
            }
            for path in ["/api/v2/", "/api/v2/pokemon/133/", "/api/v2/move/?limit=60"] {
                #expect(try server.get(path).status == 200, "\(path)")
            }
            stuck.removeAll()
            #expect(try server.get("/api/v2/").status == 200)
            #expect(await server.stop().status == 0)
        }
    }

    @Test func fewDescriptorsMakeClientsWaitNotACrash() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let script = "ulimit -n 64 && exec \(PokesyncCLI.binary.path) serve --listen 127.0.0.1:0 --mirror \(mirror.path)"
            let output = folder.appendingPathComponent("serve.out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script]
            process.standardOutput = try FileHandle(forWritingTo: output)
            let errors = folder.appendingPathComponent("serve.err")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
            let stderr = { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }
            var port: Int?
            for _ in 0 ..< 500 where port == nil {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                if let range = text.range(of: #"listening on 127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                    port = Int(text[range].split(separator: ":").last!)
                }
                usleep(20_000)
            }
            let served = try #require(port)
            // More connections than descriptors: the extra ones wait in the backlog.
            var open: [RawConnection] = []
            for _ in 0 ..< 100 { open.append(try RawConnection(port: served, timeout: 2)) }
            usleep(500_000)
            #expect(process.isRunning, "\(stderr())")
            open.removeAll()
            usleep(500_000)
            #expect(try ServeProcess.get(port: served, "/api/v2/").status == 200)
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
    }

    /// A document whose stored bytes do not inflate: a 500 naming the path on standard error,
    /// every time it is asked for (read again once, then given up), and the rest served.
    @Test func aCorruptDocumentIsA500AndTheRestIsServed() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let store = mirror.appendingPathComponent("store.sqlite").path
            // The real sqlite3 rewrites one pokemon's deflated bytes as zeros of the same length.
            let row = try await runTool("sqlite3", [store, "SELECT hex(hash), id FROM version_documents WHERE kind = 'pokemon' ORDER BY id LIMIT 1"])
            let fields = row.split(separator: "|").map(String.init)  // runTool's text is trimmed
            try #require(fields.count == 2, "\(row)")
            _ = try await runTool("sqlite3", [store, "UPDATE documents SET body = zeroblob(length(body)) WHERE hash = x'\(fields[0])'"])
            let server = try await ServeProcess(mirror: mirror)
            let broken = "/api/v2/pokemon/\(fields[1])/"
            for coding in ["Accept-Encoding: gzip", "Accept-Encoding: identity"] {
                let response = try server.get(broken, headers: [coding])
                #expect(response.status == 500, "\(broken), \(coding): \(response.status)")
            }
            #expect(try server.get("/api/v2/").status == 200)
            #expect(server.child.process.isRunning)
            let result = await server.stop()
            #expect(result.status == 0)
            #expect(result.stderr.contains("serve: \(broken): "), "\(result.stderr)")
        }
    }

    @Test func anUnreadableStoreIsA500AndTheServerStaysUp() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let server = try await ServeProcess(mirror: mirror)
            #expect(try server.get("/api/v2/pokemon/25/").status == 200)
            // The store replaced by garbage under the server (a disk fault, a careless copy).
            let store = mirror.appendingPathComponent("store.sqlite")
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
            try Data(repeating: 0x41, count: 8192).write(to: store)
            let broken = try server.get("/api/v2/pokemon/133/")
            #expect([500, 200].contains(broken.status), "\(broken.status)")
            // What was cached is still served; the process is still up.
            #expect(try server.get("/api/v2/pokemon/25/").status != 0)
            #expect(server.child.process.isRunning)
            #expect(await server.stop().status == 0)
        }
    }
}
