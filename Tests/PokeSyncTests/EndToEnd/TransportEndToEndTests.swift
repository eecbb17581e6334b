import Foundation
import Testing
@testable import PokeSyncCore
import PokedexReader

/// The built binary's HTTP against bodies that never end, refusing proxies and install
/// servers: what it reads (the server's own count), its memory (from /proc) and its words.
@Suite("HTTP transport, end to end", .serialized)
struct TransportEndToEndTests {
    /// Slack over a cap for what the server may have written: what sat in socket buffers.
    static let slack = 1 << 20

    @Test("an endless document on the source is refused at the cap, read no further")
    func endlessDocument() async throws {
        try await withTemporaryDirectory { scratch in
            try await withHostileServer(.endless) { server in
                let (result, _) = try await HostileServerTests.full(server, in: scratch, ["--sprites", "none"],
                                                                   mirrorJSON: #"{"retry": {"attempts": 1}}"#)
                #expect(result.status == 1, "\(result.stderr)")
                #expect(result.stderr.contains("pokemon/1/: body larger than 16777216 bytes, refused"), "\(result.stderr)")
                let stats = try server.stats()
                #expect(stats.streaming == 0 && stats.bodies == 1)
                #expect(stats.largest <= (16 << 20) + Self.slack, "the server wrote \(stats.largest) bytes")
            }
        }
    }

    @Test("eight endless sprites and cries at once: each stops at its cap, peak RSS under 150 MB")
    func endlessLinkedFiles() async throws {
        try await withTemporaryDirectory { scratch in
            try await withHostileServer(.endlessFiles) { server in
                let (result, usage) = try await HostileServerTests.full(
                    server, in: scratch,
                    ["--sprites", "default", "--sprite-source", server.spriteBaseURL.absoluteString,
                     "--cries", "latest", "--cry-source", server.cryBaseURL.absoluteString, "--concurrency", "8"],
                    mirrorJSON: #"{"retry": {"attempts": 1}}"#)
                // A linked file's own limit (8 MiB) stops it while it streams.
                #expect(result.stdout.contains("larger than 8388608 bytes"), "\(result.stdout)\n\(result.stderr)")
                #expect(usage.peakResidentBytes < 150 << 20, "peak RSS \(usage.peakResidentBytes >> 20) MB")
                let stats = try server.stats()
                #expect(stats.streaming == 0 && stats.bodies == 16, "\(stats)")
                #expect(stats.sent.allSatisfy { $0 <= (8 << 20) + Self.slack }, "\(stats.sent)")
            }
        }
    }

    @Test("install --from an endless index: refused at the index's cap, read no further")
    func endlessIndex() async throws {
        try await withTemporaryDirectory { scratch in
            try await withHostileServer(.endless) { server in
                let cli = PokesyncCLI(mirror: scratch)
                let result = try await cli.run(["install", scratch.appendingPathComponent("device").path,
                                          "--from", server.indexURL.absoluteString], addMirror: false)
                #expect(result.status == 65, "\(result.stderr)")
                #expect(result.stderr.contains("larger than the index's"), "\(result.stderr)")
                try await waitUntil { try server.stats().streaming == 0 }
                let stats = try server.stats()
                #expect(stats.largest <= BundleIndex.maxBytes + 1 + Self.slack, "the server wrote \(stats.largest) bytes")
            }
        }
    }

    @Test("install says pokesync's name and version on every request, and names a refused redirect")
    func installUserAgentAndRedirect() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let server = try BundleServer.start(serving: world.bundles(2))
            defer { server.stop() }
            let cli = PokesyncCLI(mirror: root)
            let result = try await cli.run(["install", world.device.path, "--from", server.indexURL.absoluteString], addMirror: false)
            #expect(result.status == 0, "\(result.stderr)")
            let agents = server.userAgents()
            #expect(agents.count >= 2 && agents.allSatisfy { $0 == PokeSync.userAgent(contact: nil) }, "\(agents)")
            #expect(PokeSync.userAgent(contact: nil).hasPrefix("pokesync/\(PokeSync.version) "))

            try server.setRules(["/index.json": ["redirect": "file:///etc/passwd"]])
            let file = try await cli.run(["install", world.device.path, "--from", server.indexURL.absoluteString], addMirror: false)
            #expect(file.status == 69)
            #expect(file.stderr.contains("redirects to file:///etc/passwd: another scheme (file), not followed"), "\(file.stderr)")
        }
    }

    @Test("an https_proxy refusing CONNECT (407, 403) is named, with its status, and not retried", arguments: [407, 403])
    func refusingProxy(status: Int) async throws {
        try await withTemporaryDirectory { scratch in
            try await withTLSStandIn { server in
                try await withProxyStandIn(refusing: status) { proxy in
                    var cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                    cli.environment = ["https_proxy": proxy.url, "no_proxy": "", "NO_PROXY": ""]
                    let run = try await cli.run(["full", "--source", server.origin.absoluteString + "/api/v2", "--sprites", "none"])
                    #expect(run.status == 69, "\(run.stderr)")
                    let proxyName = "\(proxy.url.dropFirst("http://".count)) (https_proxy)"
                    #expect(run.stderr.contains("the proxy \(proxyName) refused the request: HTTP \(status)"), "\(run.stderr)")
                    #expect(run.stderr.contains("not retried"))
                    let through = try proxy.stats()
                    #expect(through.connects == 1, "retried: \(through.targets)")
                    #expect(try server.stats().connections == 0)
                }
            }
        }
    }

    @Test("a proxy on a closed port is named, not the origin behind it")
    func closedProxy() async throws {
        try await withTemporaryDirectory { scratch in
            try await withTLSStandIn { server in
                let closed = try Self.closedPort()
                var cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                try FileManager.default.createDirectory(at: cli.mirror, withIntermediateDirectories: true)
                try #"{"retry": {"attempts": 2, "base_delay_ms": 10}}"#.write(
                    to: cli.mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
                cli.environment = ["https_proxy": "http://127.0.0.1:\(closed)", "no_proxy": "", "NO_PROXY": ""]
                let run = try await cli.run(["full", "--source", server.origin.absoluteString + "/api/v2", "--sprites", "none"])
                #expect(run.status == 1 || run.status == 69, "\(run.stderr)")
                #expect(run.stderr.contains("cannot connect to the proxy 127.0.0.1:\(closed) (https_proxy)"), "\(run.stderr)")
                #expect(!run.stderr.contains("cannot connect to host"), "\(run.stderr)")
            }
        }
    }

    /// A port on 127.0.0.1 that nothing listens on (bound, then closed).
    static func closedPort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw StandInServerError(description: "cannot bind a port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
