import Foundation
import Testing

/// serve's own outputs going away never stop it (<doc:PokeServe/Serving>, "Overview"): a
/// closed standard output, a pipe closed at start or whose reader leaves, SIGHUPs from the
/// first moment, an access log that is a FIFO nobody reads yet. SIGTERM then exits 0.
@Suite("serve: outputs that go away, signals at start", .serialized)
struct ServeOutputsTests {
    /// GET `path` on `port` once serve listens (asked again for up to 30 s).
    static func getOnceListening(port: Int, _ path: String = "/api/v2/stat/1/", while child: Process) throws -> Int? {
        let until = Date().addingTimeInterval(30)
        while child.isRunning && Date() < until {
            if let response = try? ServeProcess.get(port: port, path) { return response.status }
            usleep(50_000)
        }
        return nil
    }

    /// A serve (not run yet) of a new mirror in `folder`, on a free port, its access log and
    /// lines on standard output into a pipe.
    static func servePiped(_ folder: URL) async throws -> (PokesyncCLI.Child, Int, Pipe) {
        let port = try NginxProcess.freePort()
        let child = PokesyncCLI(mirror: try await ServeMirror.make(folder)).start(["serve", "--listen", "127.0.0.1:\(port)", "--access-log", "-"])
        let pipe = Pipe()
        child.process.standardOutput = pipe
        return (child, port, pipe)
    }

    static func terminate(_ child: Process) -> Int32 {
        kill(child.processIdentifier, SIGTERM)
        child.waitUntilExit()
        return child.terminationStatus
    }

    /// `serve ... >&-`: standard output closed before the start.
    @Test func aClosedStandardOutputNeverStopsServe() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let port = try NginxProcess.freePort()
            let child = PokesyncCLI(mirror: mirror).start([])
            child.process.executableURL = URL(fileURLWithPath: "/bin/sh")
            child.process.arguments = ["-c", "exec \"$0\" serve --mirror \"$1\" --listen 127.0.0.1:\"$2\" --access-log - >&-",
                                       PokesyncCLI.binary.path, mirror.path, String(port)]
            try child.process.run()
            #expect(try Self.getOnceListening(port: port, while: child.process) == 200, "\((try? String(contentsOf: child.stderrFile, encoding: .utf8)) ?? "")")
            #expect(try ServeProcess.get(port: port, "/api/v2/").status == 200)
            #expect(Self.terminate(child.process) == 0)
            #expect(!child.result().stderr.contains("Fatal error"), "\(child.result().stderr)")
        }
    }

    /// `serve ... | true`: the pipe's reader gone before the first line is written.
    @Test func aPipeClosedAtStartNeverStopsServe() async throws {
        try await withTemporaryDirectory { folder in
            let (child, port, pipe) = try await Self.servePiped(folder)
            try pipe.fileHandleForReading.close()
            try child.process.run()
            #expect(try Self.getOnceListening(port: port, while: child.process) == 200, "\((try? String(contentsOf: child.stderrFile, encoding: .utf8)) ?? "")")
            #expect(Self.terminate(child.process) == 0)
        }
    }

    /// `serve ... | head -1`: a script that waits for the start line, then leaves.
    @Test func aReaderThatLeavesNeverStopsServe() async throws {
        try await withTemporaryDirectory { folder in
            let (child, port, pipe) = try await Self.servePiped(folder)
            try child.process.run()
            var first: [UInt8] = []
            while !first.contains(0x0A), let chunk = try pipe.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty {
                first += chunk
            }
            #expect(String(decoding: first, as: UTF8.self).hasPrefix("serving version 1 "))
            try pipe.fileHandleForReading.close()
            for _ in 0 ..< 20 { #expect(try ServeProcess.get(port: port, "/api/v2/stat/1/").status == 200) }
            #expect(Self.terminate(child.process) == 0, "\(child.result().stderr)")
            #expect(!child.result().stderr.contains("crashed"), "\(child.result().stderr)")
        }
    }

    /// SIGHUPs from the moment serve ignores them (its first instructions) through its start
    /// and after: each reopens the access log, none stops it.
    @Test func sighupsFromTheStartNeverStopServe() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let log = folder.appendingPathComponent("access.log")
            let child = PokesyncCLI(mirror: mirror).start(["serve", "--listen", "127.0.0.1:0", "--access-log", log.path])
            try child.process.run()
            let pid = child.process.processIdentifier
            // SigIgn in /proc: the mask of ignored signals, SIGHUP its lowest bit.
            func ignoresHangUp() -> Bool {
                guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
                      let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
                return mask & 1 != 0
            }
            let until = Date().addingTimeInterval(30)
            while child.process.isRunning && !ignoresHangUp() && Date() < until { usleep(200) }
            var sent = 0
            func announced() -> Bool { ((try? String(contentsOf: child.stdoutFile, encoding: .utf8)) ?? "").contains("listening on") }
            while child.process.isRunning && !announced() && Date() < until {
                kill(pid, SIGHUP)
                sent += 1
                usleep(1_000)
            }
            for _ in 0 ..< 200 {
                kill(pid, SIGHUP)
                usleep(500)
            }
            #expect(child.process.isRunning, "exit \(child.process.isRunning ? 0 : child.process.terminationStatus) after \(sent) SIGHUPs")
            let output = (try? String(contentsOf: child.stdoutFile, encoding: .utf8)) ?? ""
            let range = try #require(output.range(of: #"listening on 127\.0\.0\.1:[0-9]+"#, options: .regularExpression))
            let port = Int(output[range].split(separator: ":").last!)!
            #expect(try ServeProcess.get(port: port, "/api/v2/stat/1/").status == 200)
            #expect(ServeOperationsTests.lines(log, atLeast: 1).count == 1)
            #expect(Self.terminate(child.process) == 0, "\(child.result().stderr)")
        }
    }

    /// `--access-log` a FIFO no one has opened: serve starts and answers; the lines reach
    /// the reader once there is one.
    @Test func aFIFOWithoutAReaderNeverBlocksTheStart() async throws {
        try await withTemporaryDirectory { folder in
            let fifo = folder.appendingPathComponent("access.fifo")
            try #require(mkfifo(fifo.path, 0o600) == 0)
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder), ["--access-log", fifo.path])
            #expect(try server.get("/api/v2/stat/1/").status == 200)
            let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
            try #require(reader >= 0)
            defer { close(reader) }
            var text = ""
            let until = Date().addingTimeInterval(10)
            while !text.contains("\n") && Date() < until {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = read(reader, &chunk, chunk.count)
                if count > 0 { text += String(decoding: chunk[0 ..< count], as: UTF8.self) } else { usleep(20_000) }
            }
            #expect(text.contains("\"GET /api/v2/stat/1/ HTTP/1.1\" 200 "), "\(text)")
            #expect(await server.stop().status == 0)
        }
    }
}
