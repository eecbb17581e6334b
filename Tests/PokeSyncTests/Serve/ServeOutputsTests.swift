import Foundation
import Testing

/// serve's own outputs going away never stop it (<doc:PokeServe/Serving>, "Overview"): a
/// closed standard output, a pipe closed at start or whose reader leaves, SIGHUPs from the
/// first moment (ignored before serve's Swift code runs), an access log that is a FIFO
/// nobody reads yet. SIGTERM then exits 0. Outputs that stall: ``ServeStalledOutputsTests``.
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
            func ignoresHangUp() -> Bool { Self.ignoredSignals(pid) & 1 != 0 }
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

    /// SIGHUP is ignored before any Swift code of serve's runs (CProcessStart's code, which
    /// the loader runs first): `serve --help`, which returns from main without any of
    /// serve's own code, held in its write to a full standard output, ignores it and
    /// survives one; `sync --help`, held the same way, keeps SIGHUP's default and ends.
    @Test func sighupIsIgnoredBeforeServesSwiftCodeRuns() throws {
        #if os(Linux)
        for (command, ignores) in [("serve", true), ("sync", false)] {
            let pipe = try ServeStalledOutputsTests.StalledPipe(full: true)
            let pid = try Self.spawn([PokesyncCLI.binary.path, command, "--help"], output: pipe.writer)
            // /proc's syscall: `1 0x1 ...` while it waits in write(2) on descriptor 1.
            let until = Date().addingTimeInterval(30)
            func writing() -> Bool {
                ((try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8)) ?? "").hasPrefix("1 0x1 ")
            }
            while !writing() && Date() < until { usleep(1_000) }
            #expect(writing(), "\(command) --help never waited on its output")
            #expect(Self.ignoredSignals(pid) & 1 == (ignores ? 1 : 0), "\(command)")
            kill(pid, SIGHUP)
            var status: Int32 = 0
            while waitpid(pid, &status, WNOHANG) == 0 { _ = pipe.contents(); usleep(1_000) }
            // The wait status: the signal that ended it in its low 7 bits, else the exit code above.
            let signal = status & 0x7F, code = (status >> 8) & 0xFF
            #expect(ignores ? signal == 0 && code == 0 : signal == SIGHUP, "\(command): wait status \(status)")
        }
        #endif
    }

    #if os(Linux)
    /// Starts `arguments` with standard output on `output`, no signal blocked nor ignored
    /// (whatever this test thread's are), standard input and error on /dev/null.
    static func spawn(_ arguments: [String], output: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output, STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard result == 0 else { throw ServeTestError("posix_spawn: \(String(cString: strerror(result)))") }
        return pid
    }
    #endif

    /// SigIgn in /proc: the mask of `pid`'s ignored signals (SIGHUP its lowest bit).
    static func ignoredSignals(_ pid: Int32) -> UInt64 {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }) else { return 0 }
        return UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
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
