import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

/// One redirect policy (`RedirectPolicy`) for the command line's HTTP client (the crawler)
/// and the reader's downloads (the updater, over URLSession as an app has it, and over the
/// libcurl transport `pokesync install` hands it): the same limit and the same rules,
/// against a real server on 127.0.0.1 that redirects.
@Suite("One redirect policy", .serialized)
struct RedirectPolicyTests {
    /// The updater as an app runs it (URLSession) or as `install` does (libcurl). Its rate
    /// window is long on purpose: each hop is a task of its own, and in a full run other
    /// suites' blocking work can hold Swift's cooperative threads for tens of seconds between
    /// hops; six hops of no bytes must not look like a stalled download.
    static func updater(_ device: URL, installTransport: Bool) -> Updater {
        var settings = UpdaterSettings(timeout: 600)
        if installTransport { settings.transport = CurlDownloadTransport(userAgent: "pokesync-tests/1.0") }
        return Updater(folder: device, settings: settings)
    }

    @Test("the crawler's client and the updater stop a redirect loop at the same hop", arguments: [false, true])
    func sameLimit(installTransport: Bool) async throws {
        try await withTestServer { server async throws in
            let client = HTTPClientTests.client(maxAttempts: 1, timeout: 120)
            let error = await #expect(throws: HTTPError.self) {
                try await client.fetch(server.url("/redirect-loop/0"), validate: HTTPClientTests.json)
            }
            #expect(error?.description.hasSuffix(RedirectPolicy.tooManyReason) == true, "\(String(describing: error))")
            let crawler = try await server.requests().count
            #expect(crawler == 1 + RedirectPolicy.maxHops)

            try await withTemporaryDirectory { root in
                let updater = Self.updater(root.appendingPathComponent("device"), installTransport: installTransport)
                let failure = await #expect(throws: UpdateError.self) {
                    try await updater.update(from: server.url("/redirect-loop/100"))
                }
                #expect(failure?.description.hasSuffix(RedirectPolicy.tooManyReason) == true, "\(String(describing: failure))")
            }
            let updater = try await server.requests().count - crawler
            #expect(updater == crawler)
        }
    }

    @Test("the crawler's client and the updater refuse the same targets in the same words", arguments: [
        ("file:///etc/passwd", false), ("file:///etc/passwd", true),
        ("http://127.0.0.2:9/ok", false), ("http://127.0.0.2:9/ok", true),
        ("https://SAMEHOST/ok", true),
    ])
    func sameRules(target: String, installTransport: Bool) async throws {
        try await withTestServer { server async throws in
            let target = target.replacingOccurrences(of: "SAMEHOST", with: server.base.host ?? "")
            let asked = server.url("/redirect-foreign/index.json?to=\(target)")
            let words = RedirectPolicy.refusal(from: asked, to: URL(string: target)!)
            let client = HTTPClientTests.client(maxAttempts: 1)
            let error = await #expect(throws: HTTPError.self) { try await client.fetch(asked, validate: HTTPClientTests.json) }
            #expect(error?.description == "GET \(asked.absoluteString): \(words)")
            try await withTemporaryDirectory { root in
                let updater = Self.updater(root.appendingPathComponent("device"), installTransport: installTransport)
                let failure = await #expect(throws: UpdateError.self) { try await updater.update(from: asked) }
                #expect(failure?.description.contains(words) == true, "\(String(describing: failure))")
            }
            // Each asked once, and neither went further.
            #expect(try await server.requests().count == 2)
        }
    }

    @Test("an allowed host is followed only over http(s), and never from https down to http")
    func schemes() async throws {
        try await withTestServer { server async throws in
            try await withTestServer(bind: "127.0.0.2") { foreign async throws in
                let client = HTTPClientTests.client(maxAttempts: 1, redirects: .allowingHosts(["127.0.0.2"]))
                let ftp = "ftp://127.0.0.2:\(foreign.base.port ?? 0)/ok"
                let asked = server.url("/redirect-foreign?to=\(ftp)")
                await #expect(throws: HTTPError.redirectRefused(from: asked, to: URL(string: ftp)!)) {
                    try await client.fetch(asked, validate: HTTPClientTests.json)
                }
                // The same host over http is followed: the refusal above was the scheme's.
                let http = server.url("/redirect-foreign?to=\(foreign.url("/ok").absoluteString)")
                #expect(try await client.fetch(http, validate: HTTPClientTests.json)["name"] == "pikachu")
                #expect(try await foreign.requests().count == 1)
            }
        }
        let policy = RedirectPolicy.allowingHosts(["sprites.example"])
        let secure = URL(string: "https://pokeapi.example/api/v2/")!
        #expect(policy.follows(URL(string: "https://sprites.example/a.png")!, origin: secure))
        #expect(!policy.follows(URL(string: "http://sprites.example/a.png")!, origin: secure))
        #expect(policy.follows(URL(string: "http://sprites.example/a.png")!, origin: URL(string: "http://pokeapi.example/")!))
        #expect(policy.decide(location: "/x", from: secure, origin: secure, hops: RedirectPolicy.maxHops + 1) == .tooMany)
    }
}
