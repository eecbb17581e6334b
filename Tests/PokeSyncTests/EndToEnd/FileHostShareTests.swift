import Foundation
import Testing
@testable import PokeSyncCore

/// A file host judged by how much it fails, not only by a run of failures: one that fails
/// most of its files is given up though the few it delivers keep any run short, and one
/// that delivers slowly is never given up.
@Suite("Linked files: a host's share of failures", .serialized)
struct FileHostShareTests {
    typealias Night = FileHostFailureTests

    /// File paths the stand-in was asked for since its stats were reset.
    static func filesAsked(_ server: StandInServer) async throws -> Int {
        try await server.stats().byPath.keys.filter { $0.hasPrefix("/PokeAPI/") }.count
    }

    /// The host fails the same 70% of its files every time (500 after every retry) and
    /// serves the rest: the files it serves keep every run of failures short, yet it is given
    /// up by its share after a few dozen files, not asked for the hundreds of others; its
    /// held files are carried, the run exits 2, and the trees are as they were.
    @Test func aHostFailingMostOfItsFilesIsGivenUp() async throws {
        try await withTemporaryDirectory { scratch in
            try await Night.withBadNight(scratch, fault: "fail-70", firstCries: "all", sprites: "all") { cli, server in
                let spritesFolder = cli.mirror.appendingPathComponent("sprites")
                let criesFolder = cli.mirror.appendingPathComponent("cries")
                let (sprites, cries) = (SpriteMirrorTests.tree(spritesFolder), SpriteMirrorTests.tree(criesFolder))
                let files = sprites.count + cries.count
                #expect(files > 300, "\(files) files: too few to tell a share from a run")
                try await server.resetStats()
                let sync = try await cli.run(Night.arguments("sync", server, cries: "all", sprites: "all"))
                #expect(sync.status == 2, "\(sync.stdout) \(sync.stderr)")
                let host = "127.0.0.1:\(server.port)"
                let givingUp = sync.stderr.split(separator: "\n").filter { $0.contains("giving up on \(host)") }
                #expect(givingUp.count == 1, "\(sync.stderr)")
                #expect(givingUp.first?.contains("for the rest of this run: it failed ") == true
                        && givingUp.first?.contains(" files (more than 50%)") == true, "\(sync.stderr)")
                // Given up after a few dozen files (the 20 before its share counts, a few more
                // while it is near half, those in flight), not after hundreds.
                let asked = try await Self.filesAsked(server)
                #expect(asked < 60, "\(asked) of \(files) files asked for")
                #expect(sync.stdout.contains("warning: sprites: ") && sync.stdout.contains(" carried from the version before: \(host) failed"),
                        "\(sync.stdout)")
                #expect(SpriteMirrorTests.tree(spritesFolder) == sprites && SpriteMirrorTests.tree(criesFolder) == cries)
                #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)
            }
        }
    }

    /// A host that takes 400 ms over every file but delivers each is slow, not failing:
    /// a first `full` with it takes every file, exits 0, and gives nothing up.
    @Test func aSlowHostThatDeliversIsNotGivenUp() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            var options = StandInOptions(root: Night.sample)
            options.fileHostFault = "slow"
            try await withStandInServer(options) { server in
                let full = try await cli.run(Night.arguments("full", server, cries: "latest", extra: ["--timeout", "1"]))
                #expect(full.status == 0, "\(full.stdout) \(full.stderr)")
                #expect(!full.stderr.contains("giving up") && !full.stdout.contains("warning:"), "\(full.stdout) \(full.stderr)")
                let sprites = SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("sprites")).count
                let cries = SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("cries")).count
                #expect(sprites >= 16 && cries >= 16, "\(sprites) sprites, \(cries) cries")
                let asked = try await server.stats().byPath.filter { $0.key.hasPrefix("/PokeAPI/") }
                #expect(asked.count == sprites + cries && asked.values.allSatisfy { $0 == 1 }, "\(asked)")
            }
        }
    }
}

/// The give-up rules of ``HostWatch`` on a clock the test moves: the share of failures,
/// the time failed files cost, and a host that delivers slowly.
@Suite("HostWatch: share and time of failures")
struct HostWatchRuleTests {
    static let host = "files.example:443"

    /// Settles `count` files on `watch`, each taking `each`, failing where `fails(index)`.
    static func settle(_ watch: HostWatch, _ count: Int, each: Duration, from start: ContinuousClock.Instant,
                       fails: (Int) -> Bool) -> ContinuousClock.Instant {
        var now = start
        for index in 0..<count {
            let began = watch.begin(host, at: now)
            now += each
            watch.end(host, fails(index) ? .failed : .delivered, since: began, at: now)
            if watch.givenUp(host, at: now) != nil { break }
        }
        return now
    }

    @Test func sevenFailuresInTenAreGivenUpWithinTheFirstFiles() {
        let watch = HostWatch(budget: .seconds(120), slots: 8)
        // Seven failures in each ten, at most seven in a row: the run rule never fires.
        _ = Self.settle(watch, 1000, each: .milliseconds(10), from: .now) { $0 % 10 >= 3 }
        let reason = watch.givenUp(Self.host)
        #expect(reason?.hasPrefix("it failed ") == true && reason?.contains("(more than 50%)") == true, "\(reason ?? "nil")")
    }

    @Test func halfFailingIsNotAShare() {
        let watch = HostWatch(budget: .seconds(120), slots: 8)
        _ = Self.settle(watch, 1000, each: .milliseconds(10), from: .now) { $0 % 2 == 1 }
        #expect(watch.givenUp(Self.host) == nil)
    }

    @Test func failuresThatCostTooMuchTimeGiveTheHostUp() {
        // A third of the files fail, each after 2 minutes of retries: under the share, but
        // 8 slots lose 15 s a failure, so 5 minutes are spent after about 20 failures.
        let watch = HostWatch(budget: .seconds(600), slots: 8)
        _ = Self.settle(watch, 1000, each: .seconds(120), from: .now) { $0 % 3 == 0 }
        let reason = watch.givenUp(Self.host)
        #expect(reason?.contains("the files it failed cost the run more than 5 minutes") == true, "\(reason ?? "nil")")
    }

    @Test func aSlowHostThatDeliversSpendsNothing() {
        let watch = HostWatch(budget: .seconds(120), slots: 8)
        _ = Self.settle(watch, 5000, each: .milliseconds(400), from: .now) { _ in false }
        #expect(watch.givenUp(Self.host) == nil)
    }
}
