import Dispatch
import Foundation
import Testing
@testable import PokeHTTP

/// The HTTP layer as another application than serve would configure it, in-process on
/// 127.0.0.1: its name, its headers, its error body, the fields it keeps, its memory and
/// its signals are the configuration's, none of serve's.
@Suite("serve: the HTTP layer as its application configures it", .serialized)
struct ServeHTTPConfigurationTests {
    /// Answers the kept fields it was given, `name=value;...`, its body counted in `memory`.
    final class FieldsResponder: Responder {
        let memory: MemoryBudget
        init(memory: MemoryBudget) { self.memory = memory }

        func answer(_ request: RequestHead) -> Answer {
            let text = request.fields.map { "\($0.name)=\($0.value)" }.joined(separator: ";")
            return .ready(Reply(status: .ok, headers: [("Content-Type", "text/plain")],
                                body: ByteBuffer(Array(text.utf8), countedIn: memory)))
        }
    }

    @Test func nameHeadersErrorsFieldsMemoryAndSignalsAreTheApplications() throws {
        let memory = MemoryBudget()
        let configuration = HTTPServerConfiguration(
            serverName: "other/2", workerCount: 1, defaultHeaders: [("X-Stamp", "1")],
            errorBody: { status, message in ErrorBody(contentType: "text/x-problem", bytes: Array("\(status.code) \(message)".utf8)) },
            keptRequestHeaders: ["X-Trace", "accept"], memory: memory, threadName: "test-http")
        let listener = try Listener(host: "127.0.0.1", port: 0)
        let port = try #require(listener.boundAddress.split(separator: ":").last.flatMap { Int($0) })
        let server = try HTTPServer(listener: listener, configuration: configuration) { FieldsResponder(memory: memory) }
        // SIGUSR2 is what stops this application's server; SIGTERM is left alone.
        let signals = ServerSignals(stop: [SIGUSR2], reopenLogs: [])
        let finished = DispatchSemaphore(value: 0)
        Thread { _ = server.run(signals: signals); finished.signal() }.start()

        // Only the kept fields reach the responder, a repeated one joined, names in lowercase.
        let answer = try ServeProcess.get(port: port, "/", headers: ["X-Trace: a", "Accept: */*", "If-None-Match: \"x\"", "x-trace: b"])
        #expect(answer.status == 200 && answer.text == "x-trace=a,b;accept=*/*", "\(answer.text)")
        #expect(answer.headers["server"] == "other/2" && answer.headers["x-stamp"] == "1", "\(answer.headers)")

        // A refusal has the default headers too, and the error body asked for.
        let connection = try RawConnection(port: port)
        try connection.send("GET / HTTP/2.0\r\n\r\n")
        let refused = try #require(try connection.readResponse())
        #expect(refused.status == 505 && refused.headers["content-type"] == "text/x-problem", "\(refused.headers)")
        #expect(refused.text.hasPrefix("505 HTTP/2 is not served"), "\(refused.text)")
        #expect(refused.headers["x-stamp"] == "1" && refused.headers["server"] == "other/2")

        kill(getpid(), SIGUSR2)
        #expect(finished.wait(timeout: .now() + 60) == .success)
        // Every head and body the server wrote was counted in the application's budget, and freed.
        #expect(memory.liveBytes == 0)
    }

    /// Buffers made and freed on many threads at once leave the count exact: each add is atomic.
    @Test func aBudgetCountsItsBuffersWhileTheyLive() {
        let memory = MemoryBudget()
        var held = (1 ... 100).map { ByteBuffer([UInt8](repeating: 7, count: $0), countedIn: memory) }
        #expect(memory.liveBytes == 5050)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0 ..< 20_000 { _ = ByteBuffer([1, 2, 3], countedIn: memory) }
        }
        #expect(memory.liveBytes == 5050)
        held.removeAll()
        #expect(memory.liveBytes == 0)
        #expect(MemoryBudget().liveBytes == 0)
    }
}

/// A head's bytes, exactly: status line, the reply's headers, the default headers it does
/// not set itself, then Content-Length, Date, Server and Connection.
@Suite("serve: a reply's head, byte for byte")
struct ServeReplyHeadTests {
    @Test func headsAreWrittenInTheirOrder() {
        let memory = MemoryBudget()
        let reply = Reply(status: .notFound, headers: [("Content-Type", "application/json"), ("X-One", "1")],
                          body: ByteBuffer(Array("{}".utf8), countedIn: memory))
        let head = reply.head(keepAlive: true, date: "Fri, 27 Nov 2026 22:30:54 GMT", defaults: [("X-One", "default"), ("X-Two", "2")],
                              server: "other/2", memory: memory)
        #expect(String(decoding: head.bytes, as: UTF8.self) == "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nX-One: 1\r\n"
            + "X-Two: 2\r\nContent-Length: 2\r\nDate: Fri, 27 Nov 2026 22:30:54 GMT\r\nServer: other/2\r\nConnection: keep-alive\r\n\r\n")
        #expect(memory.liveBytes == 2 + head.count)
        let notModified = Reply(status: .notModified, headers: [("ETag", "\"a\"")], sendsBody: false)
        #expect(String(decoding: notModified.head(keepAlive: false, date: "d", defaults: [], server: "s", memory: memory).bytes, as: UTF8.self)
            == "HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\nDate: d\r\nServer: s\r\nConnection: close\r\n\r\n")
    }
}
