import Foundation
import Testing
@testable import PokeSyncCore

/// <doc:PokeSyncCore/MirrorFolder#One-upstream-state>: a version is one upstream state. A sync
/// killed against the older sample and resumed once upstream serves the newer one, and a
/// run during which upstream changes, publish what a clean mirror of the newer one holds,
/// document for document, with or without ETags, under a changed or an unchanged deploy hash.
@Suite("A version is one upstream state", .serialized)
struct UpstreamStateTests {
    /// How the stand-in says what it serves: the cases of the night.
    enum Upstream: String, CaseIterable, CustomStringConvertible {
        /// ETags and Last-Modified; `X-PokeAPI-Hash` from each snapshot's lists (they differ).
        case etagsNewDeployHash
        /// ETags; the same `X-PokeAPI-Hash` before and after (a hash that did not follow the data).
        case etagsSameDeployHash
        /// A stock self-hosted server (no validators, never 304) behind a proxy whose hash changes.
        case plainNewDeployHash
        /// The same, the proxy's hash left as it was.
        case plainSameDeployHash
        /// No validators and no deploy hash at all.
        case plainNoDeployHash

        var description: String { rawValue }

        var sendsETags: Bool { self == .etagsNewDeployHash || self == .etagsSameDeployHash }

        /// The older sample, switching to the newer one on `switchSnapshot()`, stalling
        /// every document after the first `stallAfter` until then.
        func options(stallAfter: Int) -> StandInOptions {
            var options = StandInOptions(root: TestPaths.sample2025)
            options.thenRoot = TestPaths.sample2026
            options.stallAfterDocuments = stallAfter
            switch self {
            case .etagsNewDeployHash: break
            case .etagsSameDeployHash:
                options.deployHash = "same-deploy"
                options.thenDeployHash = "same-deploy"
            case .plainNewDeployHash:
                options.noValidators = true
                options.proxyDeployHash = "data-2025-12-02"
                options.thenProxyDeployHash = "data-2026-08-08"
            case .plainSameDeployHash:
                options.noValidators = true
                options.proxyDeployHash = "same-deploy"
            case .plainNoDeployHash:
                options.noValidators = true
            }
            return options
        }
    }

    /// 22 abilities, then 8 evolution chains (documents go kind by kind, in id order, one at
    /// a time): 3 of those chains are the same in both samples, 27 differ.
    static let killedAfter = 30

    /// The documents of a clean `full` of the newer sample: what every published version must hold.
    static func cleanNewer(_ scratch: URL) async throws -> [VersionDocument] {
        let clean = PokesyncCLI(mirror: scratch.appendingPathComponent("Clean"))
        let full = try await clean.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"])
        #expect(full.status == 0, "\(full.stderr)")
        return try Store(layout: MirrorLayout(root: clean.mirror), create: false, readOnly: true).documents(version: 1)
    }

    /// Waits until the stand-in holds a document request (the run has had exactly
    /// `killedAfter` documents), or the child ended.
    static func waitForTheStall(_ server: StandInServer, _ child: PokesyncCLI.Child) async throws {
        while try await (server.stats().stalled ?? 0) == 0 && child.process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Starts `sync` (one document at a time), kills it with SIGKILL while the stand-in holds
    /// its request after `killedAfter` documents, then switches the stand-in's snapshot and
    /// zeroes its counters. Returns the arguments, to run the same command again.
    static func syncKilledAtTheStall(_ cli: PokesyncCLI, _ server: StandInServer, extra: [String] = []) async throws -> [String] {
        let arguments = ["sync", "--source", server.baseURL.absoluteString, "--sprites", "none", "--concurrency", "1"] + extra
        let child = cli.start(arguments)
        try child.process.run()
        try await waitForTheStall(server, child)
        kill(child.process.processIdentifier, SIGKILL)
        await child.waitUntilExit()
        #expect(child.process.terminationReason == .uncaughtSignal, "\(child.result().stderr)")
        try await server.switchSnapshot()
        try await server.resetStats()
        return arguments
    }

    @Test("killed against the older snapshot, resumed against the newer: the newer one, document for document",
          arguments: Upstream.allCases)
    func killedThenNewerPublishesTheNewer(upstream: Upstream) async throws {
        try await withTemporaryDirectory { scratch in
            let expected = try await Self.cleanNewer(scratch)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(upstream.options(stallAfter: Self.killedAfter)) { server in
                // The next night: upstream has deployed the newer snapshot.
                let arguments = try await Self.syncKilledAtTheStall(cli, server)
                let resumed = try await cli.run(arguments.dropLast() + ["4"])
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(resumed.stderr.contains("resuming the sync run"), "\(resumed.stderr)")
                #expect(resumed.stderr.contains("upstream changed since the interrupted run began ("), "\(resumed.stderr)")
                #expect(resumed.stderr.contains(": re-checking \(Self.killedAfter) documents"), "\(resumed.stderr)")
                #expect(resumed.stdout.contains("published version 1"), "\(resumed.stdout)")
                // Conditional where the store holds validators: the 3 chains the snapshots share are 304s.
                let stats = try await server.stats()
                #expect((stats.status["304"] ?? 0) == (upstream.sendsETags ? 3 : 0), "\(stats.status)")
            }
            let store = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
            let published = try store.documents(version: 1)
            #expect(published.count == expected.count)
            #expect(Set(published) == Set(expected), "\(Set(published).symmetricDifference(expected).map { "\($0.kind.apiName)/\($0.id)" }.sorted())")
            // The version names the deploy its documents are of: the newer one.
            let deploy = try store.version(1)?.deployHash
            switch upstream {
            case .etagsNewDeployHash: #expect(deploy != nil)
            case .etagsSameDeployHash, .plainSameDeployHash: #expect(deploy == "same-deploy")
            case .plainNewDeployHash: #expect(deploy == "data-2026-08-08")
            case .plainNoDeployHash: #expect(deploy == nil)
            }
        }
    }

    @Test("upstream deploys while a full runs: its documents are re-checked before it publishes", arguments: [Upstream.etagsNewDeployHash, .plainNoDeployHash])
    func changeDuringTheRunIsRechecked(upstream: Upstream) async throws {
        try await withTemporaryDirectory { scratch in
            let expected = try await Self.cleanNewer(scratch)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(upstream.options(stallAfter: Self.killedAfter)) { server in
                let child = cli.start(["full", "--source", server.baseURL.absoluteString, "--sprites", "none", "--concurrency", "1"])
                try child.process.run()
                try await Self.waitForTheStall(server, child)
                // Upstream deploys mid-run: the held request and every later one get the newer snapshot.
                try await server.switchSnapshot()
                await child.waitUntilExit()
                let result = child.result()
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("upstream changed while this run ran ("), "\(result.stderr)")
                #expect(result.stderr.contains(" documents before publishing"), "\(result.stderr)")
                // A `full` asks unconditionally, but its re-checks are conditional where it can be.
                let notModified = try await server.stats().status["304"] ?? 0
                #expect(upstream.sendsETags ? notModified > 200 : notModified == 0, "\(notModified) 304s")
            }
            let published = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true).documents(version: 1)
            #expect(Set(published) == Set(expected), "\(Set(published).symmetricDifference(expected).map { "\($0.kind.apiName)/\($0.id)" }.sorted())")
        }
    }

    @Test("resumed against the same snapshot without a deploy hash: re-checked all the same, and found unchanged")
    func noDeployHashCannotShowUpstreamUnchanged() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            var options = StandInOptions(root: TestPaths.sample2026)
            options.noValidators = true
            options.stallAfterDocuments = Self.killedAfter
            try await withStandInServer(options) { server in
                let arguments = try await Self.syncKilledAtTheStall(cli, server)  // no second snapshot: only the stall ends
                let resumed = try await cli.run(arguments)
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(resumed.stderr.contains("upstream cannot be shown unchanged since the interrupted run began "
                                                 + "(it sends no deploy hash, X-PokeAPI-Hash): re-checking \(Self.killedAfter) documents"),
                        "\(resumed.stderr)")
                // Each of them asked again, once, and counted unchanged: the same bytes came back.
                let stats = try await server.stats()
                #expect(SilentSourceTests.documentRequests(stats).count == (try Samples.documents(TestPaths.sample2026).count))
                #expect(resumed.stdout.contains(", \(Self.killedAfter) unchanged;"), "\(resumed.stdout)")
            }
        }
    }

    @Test("--kinds all, killed against the older whole API, resumed once the root names two more endpoints")
    func aNewRootIsANewState() async throws {
        try await withTemporaryDirectory { scratch in
            let clean = PokesyncCLI(mirror: scratch.appendingPathComponent("Clean"))
            let full = try await clean.run(["full", "--source", WholeAPITests.whole2026.path, "--kinds", "all", "--sprites", "none"])
            #expect(full.status == 0, "\(full.stderr)")
            let expected = try Store(layout: MirrorLayout(root: clean.mirror), create: false, readOnly: true).documents(version: 1)
            var options = StandInOptions(root: WholeAPITests.whole2025)
            options.thenRoot = WholeAPITests.whole2026
            options.stallAfterDocuments = Self.killedAfter
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(options) { server in
                let arguments = try await Self.syncKilledAtTheStall(cli, server, extra: ["--kinds", "all"])
                let resumed = try await cli.run(arguments)
                #expect(resumed.status == 0, "\(resumed.stderr)")
                // 2026-08-08's root adds currency and meta.
                #expect(resumed.stderr.contains("upstream changed since the interrupted run began (the root's endpoints; "),
                        "\(resumed.stderr)")
                #expect(resumed.stderr.contains(": re-checking \(Self.killedAfter) documents"), "\(resumed.stderr)")
            }
            let store = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
            let published = try store.documents(version: 1)
            #expect(Set(published.map(\.kind)).isSuperset(of: [.meta, ResourceKind(rawValue: "currency")]))
            #expect(Set(published) == Set(expected), "\(Set(published).symmetricDifference(expected).map { "\($0.kind.apiName)/\($0.id)" }.sorted())")
        }
    }

    @Test("with sprites: killed once the older pokemon are in, resumed against the newer: its documents and sprites")
    func spritesFollowTheNewerDocuments() async throws {
        try await withTemporaryDirectory { scratch in
            // 22 abilities, 12 chains, 13 languages, 68 moves, 2 pokedexes, then all 17 pokemon.
            var options = StandInOptions(root: TestPaths.sample2025)
            options.thenRoot = TestPaths.sample2026
            options.stallAfterDocuments = 140
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let clean = PokesyncCLI(mirror: scratch.appendingPathComponent("Clean"))
            try await withStandInServer(options) { server in
                let sprites = ["--sprite-source", server.spriteBaseURL.absoluteString, "--sprites", "default"]
                let arguments = try await Self.syncKilledAtTheStall(cli, server, extra: sprites)
                let resumed = try await cli.run(arguments)
                #expect(resumed.status == 0, "\(resumed.stderr)")
                // One of the 140 is in the older lists only: it leaves the run rather than being re-checked.
                #expect(resumed.stderr.contains(": re-checking 139 documents"), "\(resumed.stderr)")
                let full = try await clean.run(["full", "--source", TestPaths.sample2026.path] + sprites)
                #expect(full.status == 0, "\(full.stderr)")
            }
            let mirror = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
            let reference = try Store(layout: MirrorLayout(root: clean.mirror), create: false, readOnly: true)
            #expect(Set(try mirror.documents(version: 1)) == Set(try reference.documents(version: 1)))
            let files = { (store: Store) in Set(try store.versionSprites(1).map { "\($0.path) \($0.hash)" }) }
            let expected = try files(reference)
            let got = try files(mirror)
            #expect(!expected.isEmpty)
            #expect(got == expected, "\(got.symmetricDifference(expected).sorted().prefix(10))")
        }
    }

    @Test("a run an older build began kept no list fingerprints: its documents are re-checked")
    func aRunWithoutFingerprintsIsRechecked() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            var options = StandInOptions(root: TestPaths.sample2026)
            options.stallAfterDocuments = Self.killedAfter
            try await withStandInServer(options) { server in
                let arguments = try await Self.syncKilledAtTheStall(cli, server)  // the same snapshot, the same deploy hash
                // As a build before fingerprints left its lists.
                let store = MirrorLayout(root: cli.mirror).storeFile.path
                let cleared = try await runProgram("sqlite3", [store, "UPDATE frontier SET hash = NULL WHERE job = 'list'"])
                #expect(cleared.status == 0, "\(cleared.stderr)")
                let resumed = try await cli.run(arguments)
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(resumed.stderr.contains("upstream changed since the interrupted run began (the interrupted run kept no "
                                                 + "fingerprint of its lists (an older pokesync began it)): re-checking \(Self.killedAfter) documents"),
                        "\(resumed.stderr)")
                // Conditionally: the same snapshot answers every re-check with a 304.
                #expect(try await server.stats().status["304"] == Self.killedAfter)
            }
        }
    }
}
