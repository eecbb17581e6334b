import Foundation
import Testing

/// serve's outputs that stall never hold it (<doc:PokeServe/Serving>, "Overview"): a
/// standard output or error that is a pipe nobody reads, made small (a page) and, where
/// it says so, full before serve starts. Answers are still served, SIGTERM still exits 0,
/// and every access-log line is in the pipe or counted as dropped, never neither.
@Suite("serve: outputs that stall", .serialized)
struct ServeStalledOutputsTests {
    /// A pipe that is not read while serve runs: one page of buffer, filled first when
    /// `full`; read only after serve exited, to count what got in.
    final class StalledPipe {
        let reader: Int32
        let writer: Int32

        init(full: Bool) throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw ServeTestError("pipe: \(String(cString: strerror(errno)))") }
            (reader, writer) = (ends[0], ends[1])
            // No other child inherits them (serve gets the writer as its own descriptor).
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            // F_SETPIPE_SZ (1031, Linux): the smallest buffer, a page.
            _ = fcntl(writer, 1031, 4096)
            guard full else { return }
            // Filled without waiting, then blocking again: serve inherits this description.
            _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
            let page = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
            while write(writer, page, page.count) > 0 {}
            _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) & ~O_NONBLOCK)
        }

        /// The writing end, for a child's standard output or error.
        var handle: FileHandle { FileHandle(fileDescriptor: writer, closeOnDealloc: false) }

        /// Fills what room the pipe has left, to its last byte, through a description of
        /// its own (the child's stays blocking): any write of the child's then has to wait.
        func fill() throws {
            let own = open("/proc/self/fd/\(writer)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            guard own >= 0 else { throw ServeTestError("reopen of the pipe: \(String(cString: strerror(errno)))") }
            defer { close(own) }
            // Down to single bytes: a small write still fits in a page the child began.
            var size = 4096
            while size > 0 {
                let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: size)
                if write(own, bytes, size) < 0 { size /= 2 }
            }
        }

        /// Reads up to the first newline, waiting for it (the start line).
        func firstLine() -> String {
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while line.last != 0x0A && read(reader, &byte, 1) == 1 { line.append(byte) }
            return String(decoding: line, as: UTF8.self)
        }

        /// What is in the pipe now, read without waiting (once serve has exited).
        func contents() -> [UInt8] {
            _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(reader, &chunk, chunk.count)
                guard count > 0 else { return bytes }
                bytes += chunk[0 ..< count]
            }
        }

        deinit {
            close(reader)
            close(writer)
        }
    }

    /// A serve of a new mirror in `folder` on a free port (not run yet), with `extra` options.
    static func serve(_ folder: URL, _ extra: [String]) async throws -> (PokesyncCLI.Child, Int) {
        let port = try NginxProcess.freePort()
        let child = PokesyncCLI(mirror: try await ServeMirror.make(folder)).start(["serve", "--listen", "127.0.0.1:\(port)"] + extra)
        return (child, port)
    }

    /// SIGTERM, then its exit status once it exits; nil when it had not within `seconds`
    /// (killed then). Generous: the bound is the 2 s an output may hold the exit, against
    /// a serve that never exited.
    static func terminate(_ child: PokesyncCLI.Child, within seconds: Double = 15) async -> Int32? {
        kill(child.process.processIdentifier, SIGTERM)
        let until = Date().addingTimeInterval(seconds)
        while child.process.isRunning && Date() < until { try? await Task.sleep(for: .milliseconds(20)) }
        let exited = !child.process.isRunning
        if !exited { kill(child.process.processIdentifier, SIGKILL) }
        await child.waitUntilExit()
        return exited ? child.process.terminationStatus : nil
    }

    /// Kills a serve a failed expectation left running.
    static func killLeftOver(_ child: PokesyncCLI.Child) {
        guard child.process.isRunning else { return }
        kill(child.process.processIdentifier, SIGKILL)
        child.process.waitUntilExit()
    }

    /// What the child wrote to standard error so far (it may still run).
    static func stderr(_ child: PokesyncCLI.Child) -> String {
        (try? String(contentsOf: child.stderrFile, encoding: .utf8)) ?? ""
    }

    /// The lines of the access log dropped in all, as the stop says on standard error.
    static func droppedAtStop(_ stderr: String) -> Int? {
        guard let range = stderr.range(of: #"stopped; [0-9]+ lines of the access log \(standard output\) were dropped in all"#,
                                       options: .regularExpression) else { return nil }
        return Int(stderr[range].split(separator: " ")[1])
    }

    /// `serve --access-log - | (a reader that read the start line, then stalled)`: the
    /// answers go on, SIGTERM exits 0 (its last line cannot go out either), and each line
    /// is in the pipe whole or counted at the stop.
    @Test func aStandardOutputNobodyReadsHoldsNeitherAnswersNorTheStop() async throws {
        try await withTemporaryDirectory { folder in
            let pipe = try StalledPipe(full: false)
            let (child, port) = try await Self.serve(folder, ["--access-log", "-"])
            child.process.standardOutput = pipe.handle
            try child.process.run()
            defer { Self.killLeftOver(child) }
            #expect(pipe.firstLine().hasPrefix("serving version 1 "))
            #expect(try ServeOutputsTests.getOnceListening(port: port, while: child.process) == 200, "\(Self.stderr(child))")
            try pipe.fill()
            for _ in 1 ..< 300 { #expect(try ServeProcess.get(port: port, "/api/v2/stat/1/").status == 200) }
            #expect(await Self.terminate(child) == 0, "\(Self.stderr(child))")
            let output = String(decoding: pipe.contents(), as: UTF8.self)
            let written = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .filter { $0.contains("\"GET /api/v2/stat/1/ HTTP/1.1\" 200 ") }.count
            let dropped = try #require(Self.droppedAtStop(child.result().stderr), "\(child.result().stderr)")
            #expect(dropped > 0 && written + dropped == 300, "\(written) written, \(dropped) dropped")
        }
    }

    /// A standard output already full when serve starts (its start line cannot go out):
    /// serve answers, on the public port and the health check's, and exits 0 at SIGTERM;
    /// every line of its access log on that output is counted dropped.
    @Test func aStandardOutputFullAtStartStillServes() async throws {
        try await withTemporaryDirectory { folder in
            let pipe = try StalledPipe(full: true)
            let metricsPort = try NginxProcess.freePort()
            let (child, port) = try await Self.serve(folder, ["--access-log", "-", "--metrics-listen", "127.0.0.1:\(metricsPort)"])
            child.process.standardOutput = pipe.handle
            try child.process.run()
            defer { Self.killLeftOver(child) }
            #expect(try ServeOutputsTests.getOnceListening(port: port, while: child.process) == 200, "\(Self.stderr(child))")
            for _ in 1 ..< 20 { #expect(try ServeProcess.get(port: port, "/api/v2/stat/1/").status == 200) }
            #expect(try ServeProcess.get(port: metricsPort, "/healthz").status == 200)
            #expect(await Self.terminate(child) == 0, "\(Self.stderr(child))")
            // Nothing of serve's got in: the pipe holds what filled it.
            #expect(pipe.contents().allSatisfy { $0 == UInt8(ascii: "x") })
            #expect(Self.droppedAtStop(child.result().stderr) == 20, "\(child.result().stderr)")
        }
    }

    /// A standard error full and never read, and a reopen that fails (the log's folder gone
    /// at a SIGHUP): its report never holds the log's writer, so every answer after it is
    /// counted dropped at once (the metric), and SIGTERM exits 0.
    @Test func aStandardErrorNobodyReadsNeverHoldsTheAccessLog() async throws {
        try await withTemporaryDirectory { folder in
            let logs = folder.appendingPathComponent("logs"), log = logs.appendingPathComponent("access.log")
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
            let pipe = try StalledPipe(full: true)
            let metricsPort = try NginxProcess.freePort()
            let (child, port) = try await Self.serve(folder, ["--access-log", log.path, "--metrics-listen", "127.0.0.1:\(metricsPort)"])
            child.process.standardError = pipe.handle
            try child.process.run()
            defer { Self.killLeftOver(child) }
            #expect(try ServeOutputsTests.getOnceListening(port: port, while: child.process) == 200)
            #expect(ServeOperationsTests.lines(log, atLeast: 1).count == 1)
            let moved = folder.appendingPathComponent("logs-old")
            try FileManager.default.moveItem(at: logs, to: moved)
            kill(child.process.processIdentifier, SIGHUP)
            for _ in 0 ..< 50 { #expect(try ServeProcess.get(port: port, "/api/v2/stat/2/").status == 200) }
            // Every answer is in the old file (before the reopen) or counted dropped.
            let name = "pokesync_serve_access_log_dropped_lines_total"
            func inOldFile() -> Int { ServeOperationsTests.lines(moved.appendingPathComponent("access.log"), atLeast: 0, within: 0).count }
            let metrics = try ServeOperationsTests.scrape(port: metricsPort) {
                ServeOperationsTests.value($0, name).map { Int($0) + inOldFile() == 51 } ?? false
            }
            let dropped = try #require(ServeOperationsTests.value(metrics, name))
            #expect(dropped > 0 && Int(dropped) + inOldFile() == 51, "\(dropped) dropped, \(inOldFile()) in the old file")
            #expect(await Self.terminate(child) == 0)
        }
    }
}
