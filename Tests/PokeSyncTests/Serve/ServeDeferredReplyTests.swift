import Dispatch
import Foundation
import Testing
@testable import PokeHTTP

/// A reply made off the event loop (``Answer/deferred(_:)``), in-process on 127.0.0.1 with
/// one worker: while a render thread makes it, the worker answers its other connections;
/// it is written in its place among its connection's replies; a client gone meanwhile, or
/// a stop, loses nothing else.
@Suite("serve: a reply made on a render thread", .serialized)
struct ServeDeferredReplyTests {
    /// `/slow...` is made on a render thread once the test opens `gate`; any other path is
    /// answered at once with its path.
    final class GatedResponder: Responder {
        let gate = DispatchSemaphore(value: 0)
        let memory: MemoryBudget
        init(memory: MemoryBudget) { self.memory = memory }

        func answer(_ request: RequestHead) -> Answer {
            let path = request.path, memory = memory
            guard path.hasPrefix("/slow") else { return .ready(Self.text(path, memory)) }
            let gate = gate
            return .deferred {
                gate.wait()
                return Self.text("made " + path, memory)
            }
        }

        static func text(_ text: String, _ memory: MemoryBudget) -> Reply {
            Reply(status: .ok, headers: [("Content-Type", "text/plain")], body: ByteBuffer(Array(text.utf8), countedIn: memory))
        }
    }

    /// A one-worker server on a free port, serving until `body` returns, then stopped; the
    /// memory its heads and bodies took is all given back.
    private func withServer(_ body: (Int, GatedResponder, HTTPServer) throws -> Void) throws {
        let memory = MemoryBudget()
        let responder = GatedResponder(memory: memory)
        let configuration = HTTPServerConfiguration(serverName: "gated/1", workerCount: 1, memory: memory, threadName: "test-gated")
        let listener = try Listener(host: "127.0.0.1", port: 0)
        let port = try #require(listener.boundAddress.split(separator: ":").last.flatMap { Int($0) })
        let server = try HTTPServer(listener: listener, configuration: configuration) { responder }
        let finished = DispatchSemaphore(value: 0)
        Thread { _ = server.run(signals: ServerSignals(stop: [], reopenLogs: [])); finished.signal() }.start()
        defer {
            server.stop()
            // Whatever a test left waiting is let go, so the drain ends.
            for _ in 0 ..< 8 { responder.gate.signal() }
            #expect(finished.wait(timeout: .now() + 30) == .success)
            #expect(memory.liveBytes == 0)
        }
        try body(port, responder, server)
    }

    @Test func theWorkerAnswersOthersWhileAReplyIsMade() throws {
        try withServer { port, responder, _ in
            let waiting = try RawConnection(port: port)
            try waiting.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            // The only worker is free: another client is answered while /slow is made.
            let other = try RawConnection(port: port)
            for path in ["/a", "/b", "/c"] {
                try other.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try other.readResponse()?.text == path)
            }
            waiting.setTimeout(0.3)
            #expect(try waiting.readResponse() == nil)
            responder.gate.signal()
            waiting.setTimeout(10)
            let made = try #require(try waiting.readResponse())
            #expect(made.status == 200 && made.text == "made /slow" && made.headers["connection"] == "keep-alive")
            // The connection goes on as before.
            try waiting.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try waiting.readResponse()?.text == "/after")
        }
    }

    @Test func pipelinedRequestsAreAnsweredInTheirOrder() throws {
        try withServer { port, responder, _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /slow/two HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /three HTTP/1.1\r\nHost: x\r\n\r\nHEAD /slow/four HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /five HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(try connection.readResponse()?.text == "/one")
            // /three waits behind /slow/two, made or not.
            connection.setTimeout(0.3)
            #expect(try connection.readResponse() == nil)
            responder.gate.signal()
            responder.gate.signal()
            connection.setTimeout(10)
            #expect(try connection.readResponse()?.text == "made /slow/two")
            #expect(try connection.readResponse()?.text == "/three")
            // A HEAD's deferred reply sends its length and no body.
            let head = try #require(try connection.readResponse(head: true))
            #expect(head.status == 200 && head.headers["content-length"] == "15" && head.body.isEmpty)
            let last = try #require(try connection.readResponse())
            #expect(last.text == "/five" && last.headers["connection"] == "close")
            #expect(connection.closes(within: 5))
        }
    }

    @Test func aClientGoneWhileItsReplyIsMadeCostsNothingElse() throws {
        try withServer { port, responder, server in
            do {
                let gone = try RawConnection(port: port)
                try gone.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
                Thread.sleep(forTimeInterval: 0.2)
                // Reset, not a polite close: the kernel reports an error on the socket.
                var hard = linger(l_onoff: 1, l_linger: 0)
                setsockopt(gone.descriptor, SOL_SOCKET, SO_LINGER, &hard, socklen_t(MemoryLayout<linger>.size))
            }
            Thread.sleep(forTimeInterval: 0.3)
            // Its connection is closed while its reply is made (the worker does not spin on
            // the hang-up).
            #expect(server.traffic().openConnections == 0)
            // A new client, most likely on the same descriptor, asks before the reply for
            // the one gone is made: it gets its own answer, never the other's.
            let next = try RawConnection(port: port)
            try next.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try next.readResponse()?.text == "/next")
            try next.send("GET /slow/next HTTP/1.1\r\nHost: x\r\n\r\n")
            Thread.sleep(forTimeInterval: 0.2)
            responder.gate.signal()
            responder.gate.signal()
            next.setTimeout(10)
            #expect(try next.readResponse()?.text == "made /slow/next")
            next.setTimeout(0.3)
            #expect(try next.readResponse() == nil)
        }
    }

    /// A request that arrives while the one before it is made waits in the kernel (the
    /// connection reads nothing meanwhile), and is answered after it.
    @Test func aRequestSentWhileTheOneBeforeIsMadeWaitsItsTurn() throws {
        try withServer { port, responder, server in
            let connection = try RawConnection(port: port)
            try connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            Thread.sleep(forTimeInterval: 0.2)
            try connection.send("GET /then HTTP/1.1\r\nHost: x\r\n\r\n")
            Thread.sleep(forTimeInterval: 0.3)
            #expect(server.traffic().openConnections == 1)
            responder.gate.signal()
            connection.setTimeout(10)
            #expect(try connection.readResponse()?.text == "made /slow")
            #expect(try connection.readResponse()?.text == "/then")
        }
    }

    @Test func aStopWaitsForTheReplyBeingMadeAndClosesAfterIt() throws {
        try withServer { port, responder, server in
            let connection = try RawConnection(port: port)
            try connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            Thread.sleep(forTimeInterval: 0.2)
            server.stop()
            Thread.sleep(forTimeInterval: 0.3)
            responder.gate.signal()
            connection.setTimeout(10)
            let made = try #require(try connection.readResponse())
            #expect(made.text == "made /slow" && made.headers["connection"] == "close")
            #expect(connection.closes(within: 5))
        }
    }
}
