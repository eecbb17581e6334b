import Foundation
import Testing
@testable import PokeSyncCore

/// <doc:PokeSyncCore/Sources#A-self-hosted-PokeAPI>: Django's middlewares save the
/// bytes, not the time; a deploy hash set by the proxy saves the time, as long as it
/// changes with the data.
@Suite("A self-hosted source behind a proxy that sends a deploy hash", .serialized)
struct ProxyDeployHashTests {
    /// A stock Django server (no ETag, no Last-Modified, no 304) behind a proxy adding `X-PokeAPI-Hash`.
    static func proxied(_ root: URL, hash: String) -> StandInOptions {
        var options = StandInOptions(root: root)
        options.noValidators = true
        options.proxyDeployHash = hash
        return options
    }

    @Test("an unchanged hash: a no-change sync asks for the lists only; a new one: every document")
    func deployHashSavesTheRequests() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(Self.proxied(TestPaths.sample2025, hash: "data-2025-12-02")) { server in
                let source = server.baseURL.absoluteString
                let full = try await cli.run(["full", "--source", source, "--sprites", "none"])
                #expect(full.status == 0, "\(full.stderr)")
                // It has a deploy hash: no "sends no ETag, Last-Modified or deploy hash" notice.
                #expect(!full.stderr.contains("sends no ETag"), "\(full.stderr)")
                try await server.resetStats()
                let sync = try await cli.run(["sync", "--source", source, "--sprites", "none"])
                #expect(sync.status == 0 && sync.stdout.contains("no changes since version 1"), "\(sync.stdout) \(sync.stderr)")
                let stats = try await server.stats()
                #expect(stats.requests == 10 && stats.byPath.keys.allSatisfy { $0.split(separator: "/").count == 3 },
                        "\(stats.byPath)")
            }
            try await withStandInServer(Self.proxied(TestPaths.sample2026, hash: "data-2026-08-08")) { server in
                let sync = try await cli.run(["sync", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                #expect(sync.status == 0 && sync.stdout.contains("published version 2"), "\(sync.stdout) \(sync.stderr)")
            }
        }
    }

    /// The platform line is there once (it was twice, once without "macOS 14+").
    @Test func readmeNamesThePlatformsOnce() throws {
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let platformLines = readme.split(separator: "\n").filter { $0.hasPrefix("- Linux (Debian 12 tested)") }
        #expect(platformLines.count == 1 && platformLines[0].contains("macOS 14+"), "\(platformLines)")
    }
}
