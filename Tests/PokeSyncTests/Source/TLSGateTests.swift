import Foundation
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

/// The first request to an https origin goes alone; how it ends decides for the others.
@Suite("TLS gate")
struct TLSGateTests {
    static let url = URL(string: "https://pokeapi.example/api/v2/pokemon/1/")!
    static let sameOrigin = URL(string: "https://POKEAPI.example:443/api/v2/pokemon/2/")!
    static let failure = HTTPError.tls(url: url, failure: TLSFailure(host: "pokeapi.example:443", problem: .untrusted,
                                                                      detail: "SSL certificate problem: self-signed certificate"))

    /// Starts `enter` in a task and gives it time to queue behind the first request.
    static func waiter(_ gate: TLSGate, _ url: URL) async -> Task<Bool, any Error> {
        let task = Task { try await gate.enter(url) }
        try? await Task.sleep(for: .milliseconds(50))
        return task
    }

    @Test("plain http is never held")
    func plainHTTPPasses() async throws {
        let gate = TLSGate()
        let http = URL(string: "http://pokeapi.example/api/v2/")!
        #expect(try await gate.enter(http) == false)
        #expect(try await gate.enter(http) == false)
    }

    @Test("a response opens the origin: those waiting and those after go at once")
    func responseOpens() async throws {
        let gate = TLSGate()
        #expect(try await gate.enter(Self.url) == true)
        let waiting = await Self.waiter(gate, Self.sameOrigin)
        gate.settle(Self.url, as: .otherwise)
        #expect(try await waiting.value == false)
        #expect(try await gate.enter(Self.url) == false)
        // Another port is another origin: it goes first on its own.
        #expect(try await gate.enter(URL(string: "https://pokeapi.example:8443/")!) == true)
    }

    @Test("a TLS failure fails those waiting and every later request, without sending")
    func tlsFailureRefuses() async throws {
        let gate = TLSGate()
        #expect(try await gate.enter(Self.url) == true)
        let waiting = await Self.waiter(gate, Self.sameOrigin)
        gate.settle(Self.url, as: .tlsFailed(Self.failure))
        await #expect(throws: Self.failure) { _ = try await waiting.value }
        await #expect(throws: Self.failure) { _ = try await gate.enter(Self.sameOrigin) }
    }

    @Test("another failure (refused, timed out) opens the origin: no request waits for another's timeout")
    func otherFailureOpens() async throws {
        let gate = TLSGate()
        #expect(try await gate.enter(Self.url) == true)
        let first = await Self.waiter(gate, Self.url)
        let second = await Self.waiter(gate, Self.url)
        gate.settle(Self.url, as: .otherwise)
        let (a, b) = (try await first.value, try await second.value)
        #expect(a == false && b == false)
        #expect(try await gate.enter(Self.url) == false)
    }

    @Test("a waiter cancelled while waiting ends with CancellationError")
    func cancelledWaiter() async throws {
        let gate = TLSGate()
        #expect(try await gate.enter(Self.url) == true)
        let waiting = await Self.waiter(gate, Self.url)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        gate.settle(Self.url, as: .otherwise)
    }
}
