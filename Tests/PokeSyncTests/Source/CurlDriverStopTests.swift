import Foundation
import Testing
@testable import PokeSyncCore

/// `CurlDriver.stop()`: the transfers submitted before it finish; one submitted after it
/// fails at once and is never sent, even while the thread still runs the earlier ones.
@Suite("libcurl driver stop", .serialized)
struct CurlDriverStopTests {
    /// Keeps the body; refuses nothing.
    final class Collect: CurlSink {
        var bytes = 0
        func head(status: Int, headers: [String: String]) -> (any Error)? { nil }
        func body(_ piece: UnsafeRawBufferPointer) -> (any Error)? {
            bytes += piece.count
            return nil
        }
    }

    static func transfer(_ url: URL) -> CurlTransfer {
        CurlTransfer(CurlTransfer.Request(url: url, headers: [:], userAgent: "pokesync-tests/1.0", timeout: 120,
                                          deadlineMilliseconds: nil, decodeContent: false, proxy: nil), sink: Collect())
    }

    @Test("a transfer submitted after stop() fails with Unavailable.stopped and never reaches the server")
    func transferAfterStop() async throws {
        try await withTestServer { server async throws in
            let driver = CurlDriver(maxConnections: 1, name: "pokesync.test")
            // Submitted before stop(): it holds the driver's thread alive past stop().
            let before = Task { try await driver.perform(Self.transfer(server.url("/slow?seconds=2"))) }
            try await waitUntil { try await !server.requests("/slow?seconds=2").isEmpty }
            driver.stop()
            await #expect {
                _ = try await driver.perform(Self.transfer(server.url("/ok")))
            } throws: { error in
                guard case CurlDriver.Unavailable.stopped = error else { return false }
                return true
            }
            let earlier = try await before.value
            #expect(earlier.status == 200)
            #expect(try await server.requests("/ok").isEmpty)
            // And any later one, whether or not the thread has exited by then.
            await #expect(throws: CurlDriver.Unavailable.self) {
                _ = try await driver.perform(Self.transfer(server.url("/ok")))
            }
            #expect(try await server.requests("/ok").isEmpty)
            #expect(CurlDriver.Unavailable.stopped.description == "the HTTP transport was already stopped")
        }
    }
}
