import Foundation
import Testing

/// The access log holds a line for every answer, or the metric counts it
/// (<doc:PokeServe/Serving>, "Running it"): the per-address 503, a reopen that fails, a
/// file that takes only part of a line, header bytes as sent.
@Suite("serve: the access log's every line or its count", .serialized)
struct ServeAccessLogTests {
    typealias Operations = ServeOperationsTests

    /// The 503 an address past its share gets at accept has its line, as any answer.
    @Test func aRefusalOfTheAddressShareIsLogged() async throws {
        try await withTemporaryDirectory { folder in
            let log = folder.appendingPathComponent("access.log")
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder),
                                          ["--access-log", log.path, "--max-connections-per-address", "2"])
            let held = [try RawConnection(port: server.port), try RawConnection(port: server.port)]
            for _ in 0 ..< 3 {
                let refused = try RawConnection(port: server.port)
                #expect(try refused.readResponse()?.status == 503)
            }
            let lines = Operations.lines(log, atLeast: 3)
            #expect(lines.count == 3, "\(lines)")
            for line in lines {
                #expect(line.hasPrefix("127.0.0.1 - - [") && line.contains("] \"-\" 503 ") && line.hasSuffix("\"-\" \"-\" 0.000"), "\(line)")
                #expect(line.range(of: Operations.combined, options: .regularExpression) != nil, "\(line)")
            }
            withExtendedLifetime(held) {}
            #expect(await server.stop().status == 0)
        }
    }

    /// User-Agent and Referer bytes that are not UTF-8, or not ASCII, are logged as sent,
    /// each byte `\xHH` (nginx's escaping), never as a replacement character.
    @Test func headerBytesAreLoggedAsSent() async throws {
        try await withTemporaryDirectory { folder in
            let log = folder.appendingPathComponent("access.log")
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder), ["--access-log", log.path])
            let connection = try RawConnection(port: server.port)
            try connection.send(Array("GET /api/v2/stat/1/ HTTP/1.1\r\nHost: x\r\nUser-Agent: app\tx".utf8) + [0xFF, 0xC3, 0xA9]
                                + Array("\r\nReferer: http://a/".utf8) + [0xFE] + Array("\r\n\r\n".utf8))
            #expect(try connection.readResponse()?.status == 200)
            let lines = Operations.lines(log, atLeast: 1)
            #expect(lines.count == 1 && lines[0].contains(#""http://a/\xFE" "app\x09x\xFF\xC3\xA9" "#), "\(lines)")
            #expect(await server.stop().status == 0)
        }
    }

    /// The log's folder gone at a SIGHUP: the old file gets no more lines, lines are dropped
    /// and counted (the metric and stderr agree); another kind of failure is said too; the
    /// next reopen that succeeds resumes, and says how many were dropped.
    @Test func aReopenThatFailsDropsAndCountsUntilOneSucceeds() async throws {
        try await withTemporaryDirectory { folder in
            let logs = folder.appendingPathComponent("logs"), log = logs.appendingPathComponent("access.log")
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder),
                                          ["--access-log", log.path, "--metrics-listen", "127.0.0.1:0"])
            let metricsPort = try #require(server.metricsPort)
            let pid = server.child.process.processIdentifier
            func stderr() -> String { (try? String(contentsOf: server.child.stderrFile, encoding: .utf8)) ?? "" }
            func waitFor(_ text: String, count: Int = 1) -> Bool {
                let until = Date().addingTimeInterval(10)
                while stderr().components(separatedBy: text).count - 1 < count && Date() < until { usleep(20_000) }
                return stderr().components(separatedBy: text).count - 1 >= count
            }
            func dropped(_ wanted: Double) throws -> Double? {
                Operations.value(try Operations.scrape(port: metricsPort) {
                    Operations.value($0, "pokesync_serve_access_log_dropped_lines_total") == wanted
                }, "pokesync_serve_access_log_dropped_lines_total")
            }
            #expect(try server.get("/api/v2/stat/1/").status == 200)
            #expect(Operations.lines(log, atLeast: 1).count == 1)

            // The folder moved away (removed, as far as the path goes): the reopen fails.
            let moved = folder.appendingPathComponent("logs-old")
            try FileManager.default.moveItem(at: logs, to: moved)
            kill(pid, SIGHUP)
            #expect(waitFor("cannot reopen the access log \(log.path): No such file or directory"), "\(stderr())")
            for _ in 0 ..< 5 { #expect(try server.get("/api/v2/stat/2/").status == 200) }
            #expect(try dropped(5) == 5)
            // Nothing went on into the old file.
            #expect(Operations.lines(moved.appendingPathComponent("access.log"), atLeast: 2, within: 0.5).count == 1)

            // Another kind of failure (the path a folder now) is said as well.
            try FileManager.default.createDirectory(at: log, withIntermediateDirectories: true)
            kill(pid, SIGHUP)
            #expect(waitFor("cannot reopen the access log \(log.path): Is a directory"), "\(stderr())")
            for _ in 0 ..< 3 { #expect(try server.get("/api/v2/stat/3/").status == 200) }
            #expect(try dropped(8) == 8)
            // The same failure again within the minute is not said twice.
            kill(pid, SIGHUP)
            #expect(try server.get("/api/v2/stat/3/").status == 200)
            #expect(try dropped(9) == 9)
            #expect(stderr().components(separatedBy: "Is a directory").count == 2, "\(stderr())")

            // Fixed: the next SIGHUP resumes, and says what was dropped.
            try FileManager.default.removeItem(at: log)
            kill(pid, SIGHUP)
            #expect(waitFor("the access log \(log.path) is written again; 9 lines were dropped meanwhile"), "\(stderr())")
            for _ in 0 ..< 2 { #expect(try server.get("/api/v2/stat/4/").status == 200) }
            let fresh = Operations.lines(log, atLeast: 2)
            #expect(fresh.count == 2 && fresh.allSatisfy { $0.contains("\"GET /api/v2/stat/4/ HTTP/1.1\" 200 ") }, "\(fresh)")
            #expect(try dropped(9) == 9)
            #expect(await server.stop().status == 0)
        }
    }

    /// A file that takes only part of a line (its size limit reached: a full disk's EFBIG):
    /// lines in the file whole are never counted as dropped, the others are, and after a
    /// rotation the new file starts with whole lines.
    @Test func aFileFullCutsNoLineIntoTheNextAndCountsOnlyWhatIsLost() async throws {
        try await withTemporaryDirectory { folder in
            let log = folder.appendingPathComponent("access.log")
            let mirror = try await ServeMirror.make(folder)
            // 96 kB at most a file (ulimit counts 1024-byte blocks in bash); the store's
            // -shm (32 kB) fits.
            let child = PokesyncCLI(mirror: mirror).start([])
            child.process.executableURL = URL(fileURLWithPath: "/bin/bash")
            child.process.arguments = ["-c", "ulimit -f 96 && exec \"$0\" serve --mirror \"$1\" --listen 127.0.0.1:0 --access-log \"$2\" --metrics-listen 127.0.0.1:0",
                                       PokesyncCLI.binary.path, mirror.path, log.path]
            let server = try await ServeProcess(child: child)
            let metricsPort = try #require(server.metricsPort)
            // Lines of about 2 kB: the 96 kB file is full after some 48 of them.
            let path = "/api/v2/nope/" + String(repeating: "a", count: 2000) + "/"
            let connection = try RawConnection(port: server.port)
            for _ in 0 ..< 100 {
                try connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try connection.readResponse()?.status == 404)
            }
            let text = try Operations.scrape(port: metricsPort) {
                Operations.value($0, #"pokesync_serve_requests_total{route="document",status="404"}"#) == 100
                    && Operations.value($0, "pokesync_serve_access_log_dropped_lines_total") ?? 0 > 0
            }
            _ = text
            // Every line handed over by now (a worker hands its lines over within 0.1 s).
            usleep(500_000)
            let dropped = try #require(Operations.value(try Operations.scrape(port: metricsPort),
                                                        "pokesync_serve_access_log_dropped_lines_total"))
            let bytes = try Data(contentsOf: log)
            #expect(bytes.count == 96 * 1024)
            let whole = bytes.filter { $0 == 0x0A }.count
            // The line cut waits to be finished: it is neither written nor counted yet.
            #expect(whole + Int(dropped) == 99, "\(whole) whole, \(dropped) dropped")
            #expect(((try? String(contentsOf: server.child.stderrFile, encoding: .utf8)) ?? "").contains("cannot write the access log \(log.path): File too large"))

            // Rotated: the cut line is given up (counted), the new file has whole lines only.
            try FileManager.default.moveItem(at: log, to: folder.appendingPathComponent("access.log.1"))
            kill(server.child.process.processIdentifier, SIGHUP)
            let until = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: log.path) && Date() < until { usleep(20_000) }
            for _ in 0 ..< 3 { #expect(try server.get("/api/v2/stat/1/").status == 200) }
            let fresh = Operations.lines(log, atLeast: 3)
            #expect(fresh.count == 3 && fresh.allSatisfy { $0.range(of: Operations.combined, options: .regularExpression) != nil }, "\(fresh)")
            let after = try Operations.scrape(port: metricsPort) {
                Operations.value($0, "pokesync_serve_access_log_dropped_lines_total") == dropped + 1
            }
            #expect(Operations.value(after, "pokesync_serve_access_log_dropped_lines_total") == dropped + 1)
            #expect(await server.stop().status == 0)
        }
    }

    /// A full disk that gets room again (a filler file removed), with no reopen: the lines
    /// in between are dropped and counted, the file takes lines again by itself, serve says
    /// so with the count, and nothing written is counted.
    @Test(.enabled(if: geteuid() == 0, "mounts a small tmpfs (the suite runs as root in CI)"))
    func aDiskWithRoomAgainIsWrittenAgainAndSaysSo() async throws {
        try await withTemporaryDirectory { folder in
            let disk = folder.appendingPathComponent("disk")
            try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
            guard try await runProgram("mount", ["-t", "tmpfs", "-o", "size=128k", "tmpfs", disk.path]).status == 0 else {
                print("skipped: cannot mount a tmpfs here")
                return
            }
            // A defer cannot await: a lazy unmount returns at once.
            defer { try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: ["-l", disk.path]).waitUntilExit() }
            let filler = disk.appendingPathComponent("filler")
            _ = try await runProgram("dd", ["if=/dev/zero", "of=\(filler.path)", "bs=4096", "count=24"])
            let log = disk.appendingPathComponent("access.log")
            let mirror = try await ServeMirror.make(folder)
            let server = try await ServeProcess(mirror: mirror, ["--access-log", log.path, "--metrics-listen", "127.0.0.1:0"])
            let metricsPort = try #require(server.metricsPort)
            // Lines of about 2 kB: the 32 kB left are full after some 16 of them.
            let path = "/api/v2/nope/" + String(repeating: "a", count: 2000) + "/"
            let connection = try RawConnection(port: server.port)
            for _ in 0 ..< 60 {
                try connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try connection.readResponse()?.status == 404)
            }
            _ = try Operations.scrape(port: metricsPort) {
                Operations.value($0, "pokesync_serve_access_log_dropped_lines_total") ?? 0 > 0
            }
            usleep(500_000)  // every line handed over (a worker hands its lines over within 0.1 s)
            let droppedWhileFull = try #require(Operations.value(try Operations.scrape(port: metricsPort),
                                                                 "pokesync_serve_access_log_dropped_lines_total"))
            try FileManager.default.removeItem(at: filler)
            for _ in 0 ..< 3 { #expect(try server.get("/api/v2/stat/1/").status == 200) }
            let stderr = { (try? String(contentsOf: server.child.stderrFile, encoding: .utf8)) ?? "" }
            let stats = { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").components(separatedBy: "GET /api/v2/stat/1/").count - 1 }
            let until = Date().addingTimeInterval(10)
            while (stats() < 3 || !stderr().contains("is written again")) && Date() < until { usleep(20_000) }
            #expect(stderr().contains("cannot write the access log \(log.path): No space left on device"), "\(stderr())")
            #expect(stderr().contains("the access log \(log.path) is written again; \(Int(droppedWhileFull)) lines were dropped meanwhile"),
                    "\(stderr())")
            let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            #expect(lines.suffix(3).allSatisfy { $0.contains("\"GET /api/v2/stat/1/ HTTP/1.1\" 200 ") }, "\(lines.suffix(3))")
            // Every answer is a whole line in the file or counted, never both.
            let bytes = try Data(contentsOf: log)
            let whole = bytes.filter { $0 == 0x0A }.count
            #expect(whole + Int(droppedWhileFull) == 63, "\(whole) whole, \(droppedWhileFull) dropped")
            #expect(Operations.value(try Operations.scrape(port: metricsPort), "pokesync_serve_access_log_dropped_lines_total")
                    == droppedWhileFull)
            #expect(await server.stop().status == 0)
        }
    }
}
