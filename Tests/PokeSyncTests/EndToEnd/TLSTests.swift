import Foundation
import PokedexReader
import Testing
@testable import PokeSyncCore

/// HTTPS against a TLS stand-in whose self-signed certificate this machine does not trust
/// (its trust store is never changed): the source, a sprite host and `install --from`
/// fail at once with one line naming the host, after one connection. Where a process can
/// be given its own CA bundle (``TrustedProcess``), the same runs succeed once trusted.
@Suite("TLS, end to end", .serialized)
struct TLSTests {
    /// The line's part that names the host and what failed.
    static func untrusted(_ server: TLSStandIn) -> String {
        "TLS: the certificate of \(server.hostAndPort) is not trusted by this machine"
    }

    /// The stderr lines that are not progress (the child's stderr is not a terminal).
    static func lines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    @Test("requests in flight to an untrusted host: one connection, no retry, all fail with its line")
    func clientMeetsTheCertificateOnce() async throws {
        try await withTLSStandIn { server in
            let client = HTTPClientTests.client(maxAttempts: 5)
            let urls = (1...8).map { server.origin.appendingPathComponent("api/v2/pokemon/\($0)/") }
            let failures = await withTaskGroup(of: HTTPError?.self) { group in
                for url in urls {
                    group.addTask {
                        do {
                            _ = try await client.fetch(url) { $0.status }
                            return nil
                        } catch {
                            return error as? HTTPError
                        }
                    }
                }
                var failures: [HTTPError] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
            #expect(failures.count == 8)
            for failure in failures {
                guard case .tls(_, let tls) = failure else {
                    Issue.record("not a TLS failure: \(failure)")
                    continue
                }
                #expect(tls.host == server.hostAndPort && tls.problem == .untrusted)
                #expect(!failure.isRetryable && failure.exitStatus == .unavailable)
                #expect(failure.description.contains(Self.untrusted(server)))
                #expect(!failure.description.contains("attempts") && !failure.description.contains("\n"))
                #if os(Linux)
                #expect(failure.description.contains("(SSL certificate problem: self-signed certificate); not retried; "
                                                     + "to trust a private CA, copy it (PEM, named *.crt) into "
                                                     + "/usr/local/share/ca-certificates/ and run update-ca-certificates"))
                #endif
            }
            // A request after the failure does not connect again either.
            await #expect(throws: HTTPError.self) { try await client.fetch(urls[0]) { $0.status } }
            let connections = try server.stats().connections
            #expect(connections == 1)
            #expect(client.statistics.requestsSent == 1 && client.statistics.retries == 0)
        }
    }

    @Test("an untrusted source: exit 69, one line naming the host, one connection")
    func untrustedSource() async throws {
        try await withTemporaryDirectory { scratch in
            try await withTLSStandIn { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let run = try await cli.run(["full", "--source", server.origin.absoluteString + "/api/v2", "--sprites", "none"])
                #expect(run.status == 69, "\(run.stderr)")
                let tlsLines = Self.lines(run.stderr).filter { $0.contains("TLS") }
                #expect(tlsLines.count == 1, "\(run.stderr)")
                let line = try #require(tlsLines.first)
                #expect(line.hasPrefix("pokesync: GET \(server.origin.absoluteString)/api/v2/"))
                #expect(line.contains(Self.untrusted(server)) && line.contains("not retried"))
                #expect(try server.stats().connections == 1)
            }
        }
    }

    @Test("an untrusted sprite host: the documents publish, exit 2, one line naming it, one connection")
    func untrustedSpriteHost() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { source in
                try await withTLSStandIn { sprites in
                    let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                    let run = try await cli.run(["full", "--source", source.baseURL.absoluteString, "--sprites", "default",
                                           "--sprite-source", sprites.origin.absoluteString + "/PokeAPI/sprites/master/"])
                    // A file host's certificate fails its files, not the run: they wait for the next run.
                    #expect(run.status == 2, "\(run.stderr)")
                    #expect(run.stdout.contains("published version 1") && run.stdout.contains("warning: sprites: "), "\(run.stdout)")
                    let line = try #require(Self.lines(run.stderr).first { $0.contains("TLS") })
                    #expect(line.contains("GET \(sprites.origin.absoluteString)/PokeAPI/sprites/master/"), "\(line)")
                    #expect(line.contains(Self.untrusted(sprites)), "\(run.stderr)")
                    #expect(Self.lines(run.stderr).filter { $0.contains("TLS") }.count == 1, "\(run.stderr)")
                    #expect(try sprites.stats().connections == 1)
                    // The documents are in; the run resumes once the host is trusted.
                    let status = try await cli.run(["status"])
                    #expect(status.status == 0)
                }
            }
        }
    }

    @Test("install --from an untrusted https index: exit 69, one line, one connection")
    func untrustedInstall() async throws {
        try await withTemporaryDirectory { scratch in
            try await withTLSStandIn(root: scratch) { server in
                let device = scratch.appendingPathComponent("device")
                let index = server.origin.absoluteString + "/index.json"
                let run = try await PokesyncCLI(mirror: scratch).run(["install", device.path, "--from", index], addMirror: false)
                #expect(run.status == 69, "\(run.stderr)")
                #expect(Self.lines(run.stderr) == Self.lines(run.stderr).filter { $0.hasPrefix("pokesync: cannot read \(index): ") })
                #expect(Self.lines(run.stderr).count == 1 && run.stderr.contains(Self.untrusted(server)), "\(run.stderr)")
                #expect(try server.stats().connections == 1)
            }
        }
    }

    @Test("https:// to a plain-HTTP port: exit 69, the line says the port does not answer in TLS")
    func plainHTTPPort() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { source in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let https = "https://127.0.0.1:\(source.port)/api/v2"
                let run = try await cli.run(["full", "--source", https, "--sprites", "none"])
                #expect(run.status == 69, "\(run.stderr)")
                #expect(run.stderr.contains("TLS: 127.0.0.1:\(source.port) does not answer in TLS (plain HTTP on that port?)"),
                        "\(run.stderr)")
                let stats = try await source.stats()
                // One from pokesync, one from this stats request.
                #expect(stats.connections == 2 && stats.requests == 0, "\(stats)")
            }
        }
    }

    @Test("trusted, but for another name: exit 69, the line says so",
          .enabled(if: TrustedProcess.isAvailable, TrustedProcess.skipMessage))
    func nameMismatch() async throws {
        try await withTemporaryDirectory { scratch in
            try await withTLSStandIn(root: scratch, names: "DNS:other.example") { server in
                let run = try await TrustedProcess.run(["full", "--source", server.origin.absoluteString + "/api/v2", "--sprites", "none",
                                                  "--mirror", scratch.appendingPathComponent("Mirror").path],
                                                 trusting: server.certificate)
                #expect(run.status == 69, "\(run.stderr)")
                #expect(run.stderr.contains("TLS: the certificate of \(server.hostAndPort) is for another name"), "\(run.stderr)")
                #expect(try server.stats().connections == 1)
            }
        }
    }

    @Test("trusted: install and full over HTTPS succeed", .enabled(if: TrustedProcess.isAvailable, TrustedProcess.skipMessage))
    func trustedPath() async throws {
        try await withTemporaryDirectory { scratch in
            let bundles = scratch.appendingPathComponent("bundles")
            try FileManager.default.createDirectory(at: bundles, withIntermediateDirectories: true)
            let version = try await UpdateFixtures.makeVersion(1, from: TestPaths.sample2026, in: scratch.appendingPathComponent("build"))
            let full = try await UpdateFixtures.writeFullBundle(version, into: bundles)
            try UpdateFixtures.writeIndex(bundles, full: full, deltas: [])
            try await withTLSStandIn(root: bundles) { server in
                let device = scratch.appendingPathComponent("device")
                let install = try await TrustedProcess.run(["install", device.path, "--from", server.origin.absoluteString + "/index.json"],
                                                     trusting: server.certificate)
                #expect(install.status == 0, "\(install.stderr)")
                #expect(install.stdout.hasPrefix("installed version 1 (full bundle"), "\(install.stdout)")
            }
            try await withStandInServer(root: TestPaths.sample2026) { source in
                try await withTLSStandIn(backend: source.origin) { server in
                    let mirror = scratch.appendingPathComponent("Mirror")
                    let run = try await TrustedProcess.run(["full", "--source", server.origin.absoluteString + "/api/v2",
                                                      "--sprites", "none", "--mirror", mirror.path], trusting: server.certificate)
                    #expect(run.status == 0, "\(run.stderr)")
                    let stats = try server.stats()
                    #expect(stats.requests > 10 && stats.handshakeFailures == 0)
                }
            }
        }
    }
}
