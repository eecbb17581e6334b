import Foundation
import PokeLocking
import PokeSyncCore
import Testing

/// Clients that cost others (<doc:PokeServe/Serving#What-clients-cannot-do-to-it>), against a real
/// `serve` with real sockets: while they run, a probe from another loopback address
/// (127.0.0.2) is answered, with a 200, within a generous bound (tests are not benchmarks:
/// `make bench-serve` measures the latencies).
@Suite("serve: clients that cost others", .serialized)
struct ServeHostileClientsTests {
    /// The slowest a probe may be answered here (a debug build on a shared machine).
    static let probeBound = 3.0

    /// The whole-API sample's documents, largest first, as the paths serve answers them at.
    static func largestDocuments(_ count: Int) throws -> [String] {
        let api = ServeMirror.whole2026.appendingPathComponent("api/v2")
        let walker = try #require(FileManager.default.enumerator(atPath: api.path))
        var sized: [(path: String, size: Int)] = []
        while let file = walker.nextObject() as? String {
            let parts = file.split(separator: "/")
            // kind/id/index.json: a document (not a list, not the root, not encounters).
            guard parts.count == 3, parts[2] == "index.json" else { continue }
            let size = try FileManager.default.attributesOfItem(atPath: api.appendingPathComponent(file).path)[.size] as? Int ?? 0
            sized.append(("/api/v2/\(parts[0])/\(parts[1])/", size))
        }
        return sized.sorted { $0.size > $1.size }.prefix(count).map(\.path)
    }

    /// `count` connections that each pipeline `requests` GETs (every other one asking for
    /// gzip) with a 2 kB receive buffer, and then read nothing.
    static func nonReaders(port: Int, count: Int, requests: Int, paths: [String]) throws -> [RawConnection] {
        var connections: [RawConnection] = []
        for index in 0 ..< count {
            let connection = try RawConnection(port: port, timeout: 30, receiveBuffer: 2048)
            var text = ""
            for request in 0 ..< requests {
                let path = paths[(index * requests + request) % paths.count]
                text += "GET \(path) HTTP/1.1\r\nHost: x\r\n" + (request % 2 == 1 ? "Accept-Encoding: gzip\r\n" : "") + "\r\n"
            }
            try connection.send(text)
            connections.append(connection)
        }
        return connections
    }

    /// Probes from 127.0.0.2 for `seconds`, one every `interval`: each must be a 200 within
    /// the bound. Returns the slowest.
    @discardableResult
    static func probe(port: Int, paths: [String], seconds: Double, interval: Double = 0.25,
                      sourceLocation: SourceLocation = #_sourceLocation) -> Double {
        let until = Date().addingTimeInterval(seconds)
        var slowest = 0.0, index = 0
        while Date() < until {
            let path = paths[index % paths.count]
            index += 1
            let started = Date()
            do {
                let response = try ServeProcess.get(port: port, path, from: "127.0.0.2")
                let took = Date().timeIntervalSince(started)
                slowest = max(slowest, took)
                #expect(response.status == 200, "\(path): \(response.status) \(response.text.prefix(100))", sourceLocation: sourceLocation)
                #expect(took < probeBound, "\(path) took \(took) s", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(path): \(error) after \(Date().timeIntervalSince(started)) s", sourceLocation: sourceLocation)
            }
            usleep(useconds_t(interval * 1e6))
        }
        return slowest
    }

    /// 300 connections pipeline 16 large documents each and read nothing: others are still
    /// answered, cached bodies and small new documents alike, never a 503.
    @Test(.enabled(if: ServeLimitsTests.raiseDescriptorLimit(to: 4096), "the hard limit on open files is below 4096"))
    func manyConnectionsThatNeverReadLockNoOneOut() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder, from: ServeMirror.whole2026, kinds: "all")
            let server = try await ServeProcess(mirror: mirror, ["--max-connections-per-address", "1000"])
            // Fetched twice before: cached, and asked for more often than the attack's bodies.
            for _ in 0 ..< 2 { for path in ["/api/v2/", "/api/v2/type/1/"] { #expect(try server.get(path).status == 200) } }
            var attackers = try Self.nonReaders(port: server.port, count: 300, requests: 16, paths: try Self.largestDocuments(40))
            usleep(300_000)
            // Cached bodies, and small documents not asked for before.
            Self.probe(port: server.port, paths: ["/api/v2/", "/api/v2/type/1/", "/api/v2/stat/1/", "/api/v2/language/2/"], seconds: 4)
            #expect(server.child.process.isRunning)
            attackers.removeAll()
            #expect(try server.get("/api/v2/pokemon/1/").status == 200)
            #expect(await server.stop().status == 0)
        }
    }

    /// 100 connections pipeline 40 requests each for pages that cost a render every time
    /// (distinct queries) and read nothing: a new client is not starved.
    @Test func pipelinedWorkIsSharedNewClientsAreNotStarved() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder, from: ServeMirror.whole2026, kinds: "all")
            let server = try await ServeProcess(mirror: mirror)
            let pages = (0 ..< 400).map { "/api/v2/move/?limit=100000&n=\($0)" } + (try Self.largestDocuments(20))
            var attackers = try Self.nonReaders(port: server.port, count: 100, requests: 40, paths: pages)
            Self.probe(port: server.port, paths: ["/api/v2/", "/api/v2/type/1/", "/api/v2/ability/1/"], seconds: 3)
            attackers.removeAll()
            #expect(await server.stop().status == 0)
        }
    }

    /// What the kernel holds for a client that reads nothing is bounded (SO_SNDBUF): each
    /// of the server's sockets has at most a couple of hundred kB in its send queue, not
    /// the documents it asked for (the kernel would grow the buffer to 4 MB).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ss") || FileManager.default.isExecutableFile(atPath: "/bin/ss"),
                   "ss (iproute2) is not installed"))
    func theKernelHoldsABoundedPartOfUnreadReplies() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder, from: ServeMirror.whole2026, kinds: "all"))
            let large = try Self.largestDocuments(4)
            var attackers = try Self.nonReaders(port: server.port, count: 20, requests: 8, paths: large)
            usleep(1_000_000)
            let listing = try await runProgram("ss", ["-tnH", "state", "established", "( sport = :\(server.port) )"])
            let queues = listing.text.split(separator: "\n").compactMap { line in
                line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
            }
            #expect(queues.count == 20, "\(listing.text)")
            #expect(queues.allSatisfy { $0 > 0 && $0 <= 200_000 }, "\(queues)")
            attackers.removeAll()
            #expect(try server.get("/api/v2/").status == 200)
            #expect(await server.stop().status == 0)
        }
    }

    /// One address holds at most its share (here lowered by flag); at the connection cap
    /// a long-idle connection makes room for a new client.
    @Test func oneAddressHoldsItsShareAndIdleConnectionsMakeRoom() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder),
                                          ["--max-connections", "40", "--max-connections-per-address", "20"])
            func keepAlive(from source: String) throws -> RawConnection {
                let connection = try RawConnection(port: server.port, from: source)
                try connection.send("GET /api/v2/stat/1/ HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try connection.readResponse()?.status == 200)
                return connection
            }
            var first: [RawConnection] = []
            for _ in 0 ..< 20 { first.append(try keepAlive(from: "127.0.0.1")) }
            // The 21st from the same address is refused at once, with a 503 that says why.
            let refused = try ServeProcess.get(port: server.port, "/api/v2/", from: "127.0.0.1")
            #expect(refused.status == 503 && refused.text.contains("Too many connections"))
            // Another address is served; it fills the server to its cap.
            var second: [RawConnection] = []
            for _ in 0 ..< 20 { second.append(try keepAlive(from: "127.0.0.2")) }
            // At the cap, a new client is answered: the longest-idle connection made room.
            let started = Date()
            #expect(try ServeProcess.get(port: server.port, "/api/v2/", from: "127.0.0.3").status == 200)
            #expect(Date().timeIntervalSince(started) < Self.probeBound)
            // Each worker closes its own longest-idle one (as each nginx worker reuses its
            // own): with two workers, one of the first two connections.
            #expect([first[0], first[1]].filter { $0.closes(within: 1) }.count == 1)
            #expect(!second[19].closes(within: 0.2))
            // A connection that keeps asking for a 404 does not hold its slot against the cap
            // forever: between requests it is idle, and the oldest idle ones go first.
            first.removeAll()
            second.removeAll()
            #expect(await server.stop().status == 0)
        }
    }

    /// The store's `-wal` and `-shm` removed under load, then a sync, a prune, and the file
    /// replaced by a backup: each noticed within a second, no 500 meanwhile.
    @Test func aStoreReplacedUnderItIsReopened() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder, from: TestPaths.sample2025)
            let store = mirror.appendingPathComponent("store.sqlite")
            let backup = folder.appendingPathComponent("backup.sqlite")
            try FileManager.default.copyItem(at: store, to: backup)
            let server = try await ServeProcess(mirror: mirror)
            let firstTag = try #require(try server.get("/api/v2/pokemon/25/").headers["x-pokeapi-hash"])
            let stop = Locked(false), failures = Locked([String]())
            let port = server.port
            let hammer = Thread {
                // Documents the cache does not hold yet, and the root, over and over.
                let paths = ["/api/v2/", "/api/v2/pokemon-species/25/", "/api/v2/move/?limit=50", "/api/v2/type/10/"]
                    + [25, 133, 643, 669, 1020, 10034, 10263, 10312].map { "/api/v2/pokemon/\($0)/" }
                var index = 0
                while !stop.withLock({ $0 }) {
                    let path = paths[index % paths.count]
                    index += 1
                    do {
                        let response = try ServeProcess.get(port: port, path)
                        if response.status >= 500 || response.status == 404 && !path.contains("/10") { failures.withLock { $0.append("\(path): \(response.status) \(response.text)") } }
                    } catch {
                        failures.withLock { $0.append("\(path): \(error)") }
                    }
                }
            }
            hammer.start()
            defer {
                stop.withLock { $0 = true }
                while !hammer.isFinished { usleep(10_000) }
            }
            usleep(300_000)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
            usleep(300_000)
            let cli = PokesyncCLI(mirror: mirror)
            let sync = try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(sync.status == 0, "\(sync.stderr)")
            // The new version within a second.
            func servesNewVersion() throws -> Bool { try server.get("/api/v2/pokemon/10312/").status == 200 }
            let published = Date()
            while try !servesNewVersion() && Date().timeIntervalSince(published) < 5 { usleep(50_000) }
            #expect(Date().timeIntervalSince(published) < 1.5, "the new version after \(Date().timeIntervalSince(published)) s")
            let secondTag = try #require(try server.get("/api/v2/pokemon/25/").headers["x-pokeapi-hash"])
            #expect(secondTag != firstTag)
            #expect(try await cli.run(["prune", "--keep", "1"]).status == 0)
            #expect(try server.get("/api/v2/pokemon/133/").status == 200)
            #expect(try server.get("/api/v2/pokemon/10263/").status == 404)
            // A restore from a backup: another file at the path (renamed into place).
            let restoring = mirror.appendingPathComponent("store.sqlite.restoring")
            try FileManager.default.copyItem(at: backup, to: restoring)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
            #expect(rename(restoring.path, store.path) == 0)
            let restored = Date()
            while try server.get("/api/v2/pokemon/25/").headers["x-pokeapi-hash"] != firstTag && Date().timeIntervalSince(restored) < 5 {
                usleep(50_000)
            }
            #expect(Date().timeIntervalSince(restored) < 1.5, "the restored version after \(Date().timeIntervalSince(restored)) s")
            #expect(try server.get("/api/v2/pokemon/10263/").status == 200)
            // A file that is no store renamed into place (a half-copied restore): the store
            // open keeps being served, documents not cached yet included.
            let garbage = mirror.appendingPathComponent("store.sqlite.garbage")
            try Data(repeating: 0x41, count: 8192).write(to: garbage)
            #expect(rename(garbage.path, store.path) == 0)
            usleep(600_000)
            for path in ["/api/v2/pokemon/776/", "/api/v2/pokemon/789/", "/api/v2/pokemon/25/"] {
                let response = try server.get(path)
                #expect(response.status == 200 && response.headers["x-pokeapi-hash"] == firstTag, "\(path): \(response.status)")
            }
            stop.withLock { $0 = true }
            while !hammer.isFinished { usleep(10_000) }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.count) failures: \(failures.withLock { $0 }.prefix(5))")
            #expect(await server.stop().status == 0)
        }
    }

    /// A mirror folder nobody may write to, without `-wal` or `-shm`: served, not exit 74.
    @Test(.enabled(if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "root needs setpriv to be another user"))
    func aReadOnlyMirrorIsServed() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            for suffix in ["-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: mirror.path + "/store.sqlite" + suffix)) }
            // Readable by all, writable by none (root is made another user below: root writes anyway).
            _ = try await runProgram("chmod", ["-R", "a+rX,a-w", mirror.path])
            _ = try await runProgram("chmod", ["a+rx", folder.path])
            // A defer cannot await: chmod of a small folder blocks only briefly.
            defer { try? Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "u+w", mirror.path]).waitUntilExit() }
            var cli = PokesyncCLI(mirror: mirror)
            cli.environment["TMPDIR"] = "/tmp"
            let child = cli.start(["serve", "--listen", "127.0.0.1:0"])
            if getuid() == 0 {
                child.process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", PokesyncCLI.binary.path]
                    + (child.process.arguments ?? [])
                child.process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            }
            try child.process.run()
            defer { if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL); child.process.waitUntilExit() } }
            var port: Int?
            for _ in 0 ..< 500 where port == nil && child.process.isRunning {
                let text = (try? String(contentsOf: child.stdoutFile, encoding: .utf8)) ?? ""
                if let range = text.range(of: #"listening on 127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                    port = Int(text[range].split(separator: ":").last!)
                }
                usleep(20_000)
            }
            let served = try #require(port, "\(child.result().stderr)")
            #expect(try ServeProcess.get(port: served, "/api/v2/pokemon/25/").status == 200)
            kill(child.process.processIdentifier, SIGTERM)
            child.process.waitUntilExit()
            #expect(child.process.terminationStatus == 0)
        }
    }
}
