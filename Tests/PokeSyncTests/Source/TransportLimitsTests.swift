import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import PokeSyncCore

/// The HTTP client's transport under bodies that never end and cancellations at any
/// moment, against real servers on 127.0.0.1: what the server wrote is the server's own count.
@Suite("HTTP transport limits", .serialized)
struct TransportLimitsTests {
    @Test("an endless chunked body stops being read at the cap: the server wrote at most cap + 1 MB")
    func endlessBody() async throws {
        try await withHostileServer(.endless) { server in
            let cap = 4 << 20
            let client = HTTPClientTests.client(maxAttempts: 1, maxBodyBytes: cap)
            let url = server.baseURL.appendingPathComponent("pokemon/1/")
            await #expect(throws: HTTPError.bodyTooLarge(url: url, limit: cap)) {
                try await client.fetch(url) { $0.body.count }
            }
            // The transfer is gone with the refusal: the server's write fails soon after.
            try await waitUntil { try server.stats().streaming == 0 }
            let stats = try server.stats()
            #expect(stats.bodies == 1)
            #expect(stats.largest <= cap + (1 << 20), "the server wrote \(stats.largest) bytes for a cap of \(cap)")
        }
    }

    @Test("eight endless bodies at once all stop at the cap")
    func eightEndlessBodies() async throws {
        try await withHostileServer(.endlessFiles) { server in
            let cap = 2 << 20
            let client = HTTPClientTests.client(maxAttempts: 1, maxBodyBytes: cap)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 1...8 {
                    let url = server.cryBaseURL.appendingPathComponent("cries/pokemon/latest/\(number).ogg")
                    group.addTask {
                        await #expect(throws: HTTPError.bodyTooLarge(url: url, limit: cap)) {
                            try await client.fetch(url) { $0.body.count }
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await waitUntil { try server.stats().streaming == 0 }
            let stats = try server.stats()
            #expect(stats.bodies == 8 && stats.sent.count == 8)
            #expect(stats.sent.allSatisfy { $0 <= cap + (1 << 20) }, "\(stats.sent)")
        }
    }

    @Test("hundreds of downloads cancelled at random moments, their last byte included: never a crash or a hang")
    func cancellationStorm() async throws {
        try await withTestServer { server async throws in
            let client = HTTPClientTests.client(maxAttempts: 1)
            var random = SystemRandomNumberGenerator()
            var values = 0, cancelled = 0
            // 400 downloads, 40 in flight at a time: each cancelled after a random wait that
            // spans its whole transfer (0 to 3 ms: sent, in headers, mid-body, at its last
            // byte, completing, done).
            for wave in 0..<10 {
                let outcomes = await withTaskGroup(of: Int.self) { group -> [Int] in
                    for index in 0..<40 {
                        let size = Int.random(in: 1...(256 << 10), using: &random)
                        let wait = Int.random(in: 0...3000, using: &random)
                        let url = server.url("/big?size=\(size)&length=\(index % 2)&w=\(wave)-\(index)")
                        group.addTask {
                            let download = Task { try await client.fetch(url) { $0.body.count } }
                            if wait > 0 { try? await Task.sleep(for: .microseconds(wait)) }
                            download.cancel()
                            do {
                                return try await download.value == size ? 1 : -1
                            } catch is CancellationError {
                                return 0
                            } catch {
                                return -1
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(!outcomes.contains(-1), "a download ended otherwise than whole or cancelled")
                values += outcomes.filter { $0 == 1 }.count
                cancelled += outcomes.filter { $0 == 0 }.count
            }
            #expect(values + cancelled == 400)
            #expect(cancelled > 0)
            // The client is still sound after the storm.
            #expect(try await client.fetch(server.url("/ok?after"), validate: HTTPClientTests.json)["name"] == "pikachu")
        }
    }

    @Test("a refused redirect says where to and why", arguments: [
        ("file:///etc/passwd", "redirects to file:///etc/passwd: another scheme (file), not followed"),
        ("https://127.0.0.1:SAMEPORT/ok", "another scheme (https), not followed"),
        ("http://127.0.0.2:9/ok", "redirects to http://127.0.0.2:9/ok: another host (127.0.0.2) and another port (9), not followed"),
    ])
    func refusedRedirects(target: String, words: String) async throws {
        try await withTestServer { server async throws in
            let port = server.url("/").port ?? 0
            let url = server.url("/redirect-foreign?to=\(target.replacingOccurrences(of: "SAMEPORT", with: "\(port)"))")
            let error = await #expect(throws: HTTPError.self) {
                try await HTTPClientTests.client().fetch(url, validate: HTTPClientTests.json)
            }
            #expect(error?.description.contains(words) == true, "\(String(describing: error))")
            #expect(error?.isRetryable == false)
        }
    }

    @Test("no_proxy, http_proxy and https_proxy are chosen as libcurl chooses them")
    func proxyChoice() {
        let environment = ProxyEnvironment(["http_proxy": "http://user:secret@proxy.internal:3128",
                                            "HTTPS_PROXY": "proxy.internal", "no_proxy": "localhost,.example.org"])
        let http = environment.proxy(for: URL(string: "http://pokeapi.co/api/v2/")!)
        #expect(http?.name == "proxy.internal:3128 (http_proxy)")
        #expect(environment.proxy(for: URL(string: "https://pokeapi.co/")!)?.name == "proxy.internal:1080 (HTTPS_PROXY)")
        #expect(environment.proxy(for: URL(string: "https://api.example.org/")!) == nil)
        #expect(environment.proxy(for: URL(string: "http://localhost:8080/")!) == nil)
        #expect(environment.proxy(for: URL(string: "http://127.0.0.1:8080/")!) != nil, "localhost does not cover 127.0.0.1")
        #expect(ProxyEnvironment(["HTTP_PROXY": "http://proxy:1"]).proxy(for: URL(string: "http://a/")!) == nil,
                "HTTP_PROXY in upper case is not read")
        #expect(ProxyEnvironment(["all_proxy": "http://p:2", "no_proxy": "*"]).proxy(for: URL(string: "http://a/")!) == nil)
    }
}
