import Foundation
import Testing
@testable import PokeSyncCore

/// `http_proxy`, `https_proxy` and `no_proxy`: chosen by `ProxyEnvironment` as libcurl
/// would, and handed to the command line's libcurl transport. A forward proxy stand-in counts what goes through it.
@Suite("Proxies from the environment, end to end", .serialized)
struct ProxyTests {
    @Test("http_proxy carries every request; no_proxy naming the host bypasses it")
    func httpProxy() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { source in
                try await withProxyStandIn { proxy in
                    var cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                    cli.environment = ["http_proxy": proxy.url, "no_proxy": "", "NO_PROXY": ""]
                    let run = try await cli.run(["full", "--source", source.baseURL.absoluteString, "--sprites", "none"])
                    #expect(run.status == 0, "\(run.stderr)")
                    let through = try proxy.stats()
                    let served = try await source.stats().requests
                    #expect(through.gets == served && served > 10 && through.connects == 0)
                    #expect(through.targets.allSatisfy { $0.hasPrefix("GET \(source.origin.absoluteString)/api/v2/") })

                    var bypass = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror2"))
                    bypass.environment = ["http_proxy": proxy.url, "no_proxy": "127.0.0.1"]
                    let direct = try await bypass.run(["full", "--source", source.baseURL.absoluteString, "--sprites", "none"])
                    #expect(direct.status == 0, "\(direct.stderr)")
                    #expect(try proxy.stats().gets == through.gets, "no_proxy=127.0.0.1 still went through the proxy")
                }
            }
        }
    }

    @Test("https_proxy tunnels with CONNECT; an untrusted host behind it is still named, once")
    func httpsProxyUntrusted() async throws {
        try await withTemporaryDirectory { scratch in
            try await withTLSStandIn { server in
                try await withProxyStandIn { proxy in
                    var cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                    cli.environment = ["https_proxy": proxy.url, "no_proxy": "", "NO_PROXY": ""]
                    let run = try await cli.run(["full", "--source", server.origin.absoluteString + "/api/v2", "--sprites", "none"])
                    #expect(run.status == 69, "\(run.stderr)")
                    #expect(run.stderr.contains("TLS: the certificate of \(server.hostAndPort) is not trusted"), "\(run.stderr)")
                    #expect(try proxy.stats().targets == ["CONNECT \(server.hostAndPort)"])
                    #expect(try server.stats().connections == 1)
                }
            }
        }
    }

    @Test("https_proxy with the host trusted: the whole run goes through the tunnel",
          .enabled(if: TrustedProcess.isAvailable, TrustedProcess.skipMessage))
    func httpsProxyTrusted() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { source in
                try await withTLSStandIn(backend: source.origin) { server in
                    try await withProxyStandIn { proxy in
                        let run = try await TrustedProcess.run(
                            ["full", "--source", server.origin.absoluteString + "/api/v2", "--sprites", "none",
                             "--mirror", scratch.appendingPathComponent("Mirror").path],
                            trusting: server.certificate, environment: ["https_proxy": proxy.url, "no_proxy": "", "NO_PROXY": ""])
                        #expect(run.status == 0, "\(run.stderr)")
                        let through = try proxy.stats()
                        #expect(through.connects >= 1 && through.gets == 0)
                        #expect(Set(through.targets) == ["CONNECT \(server.hostAndPort)"])
                        #expect(try server.stats().connections == through.connects)
                    }
                }
            }
        }
    }
}
