import Foundation
import Testing
@testable import PokeSyncCore

/// A self-hosted PokeAPI (its stock Django server) as the source, reached through
/// addresses whose absolute URLs name other hosts, sending no validators.
///
/// Only 127.0.0.1 is contacted. Host A is a canary stand-in on 127.0.0.2 that must get no
/// connection; host B (`internal.invalid`) resolves nowhere.
@Suite("Self-hosted PokeAPI source", .serialized)
struct SelfHostedSourceTests {
    static let hostB = "http://internal.invalid:8000"

    /// The stand-in a self-hosted server looks like: URLs on `urlBase`, no validators.
    static func selfHosted(_ urlBase: String, gzip: Bool = true) -> StandInOptions {
        var options = StandInOptions(root: TestPaths.sample2026)
        options.urlBase = urlBase
        options.noValidators = true
        options.noGzip = !gzip
        return options
    }

    /// A listener on 127.0.0.2 whose origin the served URLs name; it must see no connection.
    static func withCanary<Result>(_ body: (StandInServer, String) async throws -> Result) async throws -> Result {
        var canary = StandInOptions(root: TestPaths.sample2026)
        canary.host = "127.0.0.2"
        return try await withStandInServer(canary) { server in
            let origin = server.baseURL.absoluteString.replacingOccurrences(of: "/api/v2", with: "")
            let result = try await body(server, origin)
            // Its own /_stats requests are not counted as requests (they are as connections).
            #expect(try await server.stats().requests == 0, "the canary host was contacted")
            return result
        }
    }

    /// Every exported and bundled byte, and every device-database cell, is checked for the hosts.
    static func expectNoHost(_ cli: PokesyncCLI, scratch: URL, hosts: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let apiData = scratch.appendingPathComponent("export-\(UUID().uuidString)")
        let bundles = scratch.appendingPathComponent("bundles-\(UUID().uuidString)")
        let exported = try await cli.run(["export", "--format", "api-data", "--out", apiData.path])
        #expect(exported.status == 0, "\(exported.stderr)", sourceLocation: sourceLocation)
        let bundled = try await cli.run(["export", "--sprites", "none", "--out", bundles.path])
        #expect(bundled.status == 0, "\(bundled.stderr)", sourceLocation: sourceLocation)
        let needles = hosts.flatMap { ["--needle", $0] }
        let report = try await runPython("find_hosts.py", needles + [apiData.path, bundles.path], sourceLocation: sourceLocation)
        #expect(report.hasPrefix("clean:"), "\(report)", sourceLocation: sourceLocation)
        // The store itself: every document of every version.
        let store = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
        for version in try store.versions() {
            for document in try store.documents(version: version.number) {
                let body = String(decoding: try store.documentBody(document.hash), as: UTF8.self)
                for host in hosts {
                    #expect(!body.contains(host), "\(document.kind.apiName)/\(document.id) names \(host)",
                            sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test("full through one address, sync through another publishes nothing; no byte names either host")
    func hostsDoNotCount() async throws {
        try await withTemporaryDirectory { scratch in
            try await Self.withCanary { _, hostA in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                try await withStandInServer(Self.selfHosted(hostA)) { server in
                    let full = try await cli.run(["full", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                    #expect(full.status == 0, "\(full.stderr)")
                    #expect(full.stderr.contains("sends no ETag, Last-Modified or deploy hash"), "\(full.stderr)")
                    #expect(full.stderr.contains("django.middleware.http.ConditionalGetMiddleware"))
                }
                try await withStandInServer(Self.selfHosted(Self.hostB, gzip: false)) { server in
                    let sync = try await cli.run(["sync", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                    #expect(sync.status == 0, "\(sync.stderr)")
                    #expect(sync.stdout.contains("no changes since version 1"), "\(sync.stdout)")
                    // Refetched whole but identical: unchanged, and said once.
                    let documents = try Samples.documents(TestPaths.sample2026).count
                    #expect(sync.stdout.contains("documents: 0 fetched, \(documents) unchanged"), "\(sync.stdout)")
                    #expect(sync.stderr.components(separatedBy: "sends no ETag").count == 2, "\(sync.stderr)")
                    #expect(sync.stdout.contains("MB on the wire)"), "\(sync.stdout)")
                }
                let status = try await cli.run(["status"])
                #expect(status.stdout.contains("source   the source sends no ETag"), "\(status.stdout)")
                let json = try await cli.run(["status", "--json"])
                #expect(json.stdout.contains("\"source_notice\" : \"the source sends no ETag"), "\(json.stdout)")
                try await Self.expectNoHost(cli, scratch: scratch, hosts: ["127.0.0.2", "internal.invalid"])
            }
        }
    }

    @Test("a store holding bodies that name a proxy's host is normalised without publishing a version")
    func oldStoreMigrates() async throws {
        try await withTemporaryDirectory { scratch in
            try await Self.withCanary { _, hostA in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                #expect(try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
                // What a build before the any-origin rule stored from a proxy: bodies naming host A.
                let storeFile = MirrorLayout(root: cli.mirror).storeFile.path
                let rewrite = """
                    import hashlib, sqlite3, sys, zlib
                    db = sqlite3.connect(sys.argv[1])
                    for old, body in db.execute("SELECT hash, body FROM documents").fetchall():
                        text = zlib.decompress(body).replace(b'"/api/v2/', b'"' + sys.argv[2].encode() + b'/api/v2/')
                        new = hashlib.sha256(text).digest()
                        db.execute("UPDATE documents SET hash = ?, size = ?, body = ? WHERE hash = ?",
                                   (new, len(text), zlib.compress(text), old))
                        db.execute("UPDATE version_documents SET hash = ? WHERE hash = ?", (new, old))
                    db.execute("DELETE FROM meta WHERE key = 'canonical_any_origin'")
                    db.commit()
                    print(db.execute("SELECT COUNT(*) FROM documents").fetchone()[0])
                    """
                // Every stored body rewritten (the script prints how many there are).
                #expect((Int(try await runTool("python3", ["-c", rewrite, storeFile, hostA])) ?? 0) > 0)
                try await withStandInServer(Self.selfHosted(Self.hostB)) { server in
                    let sync = try await cli.run(["sync", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                    #expect(sync.status == 0, "\(sync.stderr)")
                    #expect(sync.stdout.contains("no changes since version 1"), "\(sync.stdout)")
                }
                try await Self.expectNoHost(cli, scratch: scratch, hosts: ["127.0.0.2", "internal.invalid"])
                let store = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
                #expect(try store.versions().count == 1)
            }
        }
    }

    @Test("a list's next link is followed on the --source base, whatever host it names")
    func nextLinksStayOnTheSource() async throws {
        try await Self.withCanary { _, hostA in
            try await withStandInServer(Self.selfHosted(hostA)) { server in
                let client = HTTPClient(configuration: HTTPClientConfiguration())
                defer { client.invalidate() }
                let source = HTTPSource(base: server.baseURL, client: client, pageLimit: 5)
                let list = try await source.list(.pokemon)
                #expect(list.resources.count == 17)
                #expect(Set(list.resources.map(\.id)).count == 17)
                #expect(list.deployHash == nil)
                #expect(try await server.stats().byPath["/api/v2/pokemon/"] == 4)
            }
        }
    }

    @Test("a next link keeps only its /api/v2/ path and query, put on the source's base")
    func nextLinkRebase() throws {
        let client = HTTPClient(configuration: HTTPClientConfiguration())
        defer { client.invalidate() }
        let source = HTTPSource(base: URL(string: "https://pokedex.example/pokeapi/api/v2/")!, client: client)
        #expect(source.followOnBase("http://internal:8000/api/v2/pokemon/?offset=5&limit=5")?.absoluteString
                == "https://pokedex.example/pokeapi/api/v2/pokemon/?offset=5&limit=5")
        #expect(source.followOnBase("/api/v2/pokedex/?offset=2")?.absoluteString
                == "https://pokedex.example/pokeapi/api/v2/pokedex/?offset=2")
        #expect(source.followOnBase("http://internal:8000/other/?offset=5") == nil)
    }

    @Test("a source that is not a PokeAPI v2 base says what was expected (exit 69)")
    func notAV2Base() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let v1 = server.baseURL.absoluteString.replacingOccurrences(of: "/api/v2", with: "/api/v1")
                let run = try await cli.run(["full", "--source", v1, "--sprites", "none"])
                #expect(run.status == 69)
                #expect(run.stderr.contains("\(v1): no PokeAPI v2 list at \(v1)/"), "\(run.stderr)")
                #expect(run.stderr.contains("(HTTP 404); --source must be the API base ending in /api/v2"), "\(run.stderr)")
            }
        }
    }
}
