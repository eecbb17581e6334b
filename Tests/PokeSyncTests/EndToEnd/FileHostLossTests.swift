import Foundation
import PokeSQLite
import Testing
@testable import PokeSyncCore

/// A file host that loses files a few at a time (<doc:PokeSyncCore/VersionsAndDiffs#Linked-files-missing-at-their-host>):
/// a file a version holds and the documents still link is carried with its bytes every night
/// its host answers 404 for it, said each night with a count that grows, and dropped only
/// by `--allow-shrink`; a host that keeps its 404s and fails the rest is given up as fast as
/// one that only fails, and a healthy host's run of files it never had does not give it up.
@Suite("Linked files: a host that loses files night after night", .serialized)
struct FileHostLossTests {
    static let sample = FileHostFailureTests.sample
    /// The document each publishing night changes (its base experience, 295 upstream).
    static let changing = "api/v2/pokemon/1020/index.json"

    /// Gives the sample's pokemon 1020 a base experience of `value`: a night with something to publish.
    static func setBaseExperience(_ copy: URL, _ value: Int) throws {
        let file = copy.appendingPathComponent(changing)
        let text = try String(contentsOf: file, encoding: .utf8)
        let changed = text.replacingOccurrences(of: #""base_experience": \d+"#, with: "\"base_experience\": \(value)",
                                                options: .regularExpression)
        try changed.write(to: file, atomically: true, encoding: .utf8)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Every sprite and cry of the sample's default kinds (several hundred files).
    static func everyFile(_ mode: String, _ server: StandInServer) -> [String] {
        [mode, "--source", server.baseURL.absoluteString, "--sprites", "all", "--cries", "all",
         "--sprite-source", server.spriteBaseURL.absoluteString, "--cry-source", server.cryBaseURL.absoluteString]
    }

    /// The `front_default` link `serve --sprite-base` gives each pokemon whose sprite is one
    /// of `paths` (`pokemon/ID.png`), and whether a local one answers 200.
    static func servedSpriteLinks(_ mirror: URL, _ paths: [String]) async throws -> [(link: String, answers: Bool)] {
        let lan = ServeLinkedFilesTests.lan
        let server = try await ServeProcess(mirror: mirror, ["--sprite-base", lan])
        // Stopped after the answers (a defer cannot await); if one throws, dropping it kills it.
        let links = try paths.map { path in
            let id = path.dropFirst("pokemon/".count).dropLast(".png".count)
            let sprites = try server.json("/api/v2/pokemon/\(id)/")["sprites"] as? [String: Any]
            let link = sprites?["front_default"] as? String ?? "none"
            let answers = link.hasPrefix(lan + "/") ? try server.get(String(link.dropFirst(lan.count))).status == 200 : false
            return (link, answers)
        }
        _ = await server.stop()
        return links
    }

    static func warnings(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("warning: ") }
    }

    /// Four nights, each losing one more sprite and one more cry at the host (404), the
    /// fourth with no document change: every version holds every file, each night exits 2
    /// with a count that grows; then `--allow-shrink` drops exactly the lost ones, says how
    /// many, and the night after records them as missing upstream and exits 0. `serve` links
    /// a carried file locally and a dropped one upstream.
    @Test func aSlowLossIsCarriedEveryNightUntilAccepted() async throws {
        try await withTemporaryDirectory { scratch in
            let copy = scratch.appendingPathComponent("upstream")
            try FileManager.default.copyItem(at: Self.sample, to: copy)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let arguments = { (server: StandInServer, extra: [String]) in
                FileHostFailureTests.arguments("sync", server, cries: "latest", extra: extra)
            }
            var first = StandInOptions(root: copy)
            first.deployHash = "first"
            let port = try await withStandInServer(first) { server -> Int in
                let full = try await cli.run(FileHostFailureTests.arguments("full", server, cries: "latest"))
                try #require(full.status == 0, "\(full.stderr)")
                return server.port
            }
            let spriteFolder = cli.mirror.appendingPathComponent("sprites")
            let cryFolder = cli.mirror.appendingPathComponent("cries")
            let sprites = SpriteMirrorTests.tree(spriteFolder), cries = SpriteMirrorTests.tree(cryFolder)
            try #require(sprites.count >= 8 && cries.count >= 8)
            let host = "127.0.0.1:\(port)"
            let lostSprites = sprites.keys.sorted(), lostCries = cries.keys.sorted()

            var deploy = "first"
            func night(_ lost: Int, change: Int?, extra: [String] = [],
                       _ body: (PokesyncCLI.Result, StandInServer) async throws -> Void) async throws {
                if let change {
                    try Self.setBaseExperience(copy, change)
                    deploy = "base-experience-\(change)"
                }
                var options = StandInOptions(root: copy)
                options.port = port
                // A new deploy when a document changed, as upstream's (X-PokeAPI-Hash).
                options.deployHash = deploy
                options.spriteMissing = (lostSprites.prefix(lost) + lostCries.prefix(lost)).joined(separator: ",")
                try await withStandInServer(options) { server in try await body(try await cli.run(arguments(server, extra)), server) }
            }

            for lost in 1...4 {
                let publishes = lost < 4
                try await night(lost, change: publishes ? 295 + lost : nil) { sync, _ in
                    #expect(sync.status == 2, "night \(lost): \(sync.stdout) \(sync.stderr)")
                    #expect(sync.stdout.contains(publishes ? "published version \(lost + 1)" : "no changes since version 4"),
                            "night \(lost): \(sync.stdout)")
                    let warnings = Self.warnings(sync.stdout)
                    #expect(warnings.count == 2, "night \(lost): \(sync.stdout)")
                    for tree in ["sprites", "cries"] {
                        #expect(warnings.contains { $0.hasPrefix("warning: \(tree): \(lost) carried from the version before (\(lost) missing at their host: 404/410): \(host) failed (e.g. ") && $0.contains("HTTP 404 upstream") },
                                "night \(lost): \(warnings)")
                    }
                    // The last lines, so the nightly log's tail and cron's mail show them.
                    #expect(sync.stdout.split(separator: "\n").suffix(2).allSatisfy { $0.hasPrefix("warning: ") }, "\(sync.stdout)")
                    #expect(!sync.stdout.contains("missing upstream (404), recorded"), "\(sync.stdout)")
                }
                // The trees and the latest version hold every file, byte for byte.
                #expect(SpriteMirrorTests.tree(spriteFolder) == sprites, "night \(lost)")
                #expect(SpriteMirrorTests.tree(cryFolder) == cries, "night \(lost)")
                let status = try Self.json(try await cli.run(["status", "--json"]).stdout)
                let latest = try #require(status["latest"] as? [String: Any])
                #expect(latest["sprites"] as? Int == sprites.count && latest["cries"] as? Int == cries.count, "\(latest)")
                #expect(latest["sprites_missing"] as? Int == 0, "\(latest)")
                let last = try #require(status["last_run_carried"] as? [String: Any])
                let files = try #require(last["files"] as? [[String: Any]])
                #expect(files.count == 2 && files.allSatisfy { $0["missing"] as? Int == lost && $0["carried"] as? Int == lost },
                        "\(files)")
                if publishes {
                    let diff = try Self.json(try await cli.run(["diff", "--json"]).stdout)
                    let summary = try #require(diff["summary"] as? [String: [String: Int]])
                    #expect(summary["sprites"] == ["added": 0, "removed": 0, "changed": 0])
                    #expect(summary["cries"] == ["added": 0, "removed": 0, "changed": 0])
                    let carried = try #require(diff["carried"] as? [[String: Any]])
                    #expect(carried.count == 2 && carried.allSatisfy { $0["missing"] as? Int == lost }, "\(carried)")
                    #expect(try await cli.run(["diff"]).stdout.contains("carried          cries: \(lost) carried from the version before (\(lost) missing"))
                }
            }
            // Carried files verify, and survive a prune of the versions that fetched them.
            #expect(try await cli.run(["prune", "--keep", "1"]).status == 0)
            let verify = try await cli.run(["verify", cli.mirror.path], addMirror: false)
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
            // serve links them locally, and the local links answer.
            let lostPaths = Array(lostSprites.prefix(4))
            for (path, served) in zip(lostPaths, try await Self.servedSpriteLinks(cli.mirror, lostPaths)) {
                #expect(served.link == "\(ServeLinkedFilesTests.lan)/sprites/\(path)" && served.answers, "\(path): \(served)")
            }

            // The loss accepted: exactly the four of each tree go, and the run says so.
            try await night(4, change: 300, extra: ["--allow-shrink"]) { sync, _ in
                #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
                #expect(sync.stdout.contains("published version 5"), "\(sync.stdout)")
                #expect(sync.stdout.contains("sprites: 4 file(s) of version 4 dropped, missing at their host (404/410) (--allow-shrink; e.g. http://\(host)/PokeAPI/"),
                        "\(sync.stdout)")
                #expect(sync.stdout.contains("cries: 4 file(s) of version 4 dropped"), "\(sync.stdout)")
                #expect(sync.stdout.contains("sprites +0 -4 ~0") && sync.stdout.contains("cries +0 -4 ~0"), "\(sync.stdout)")
                #expect(Self.warnings(sync.stdout).isEmpty, "\(sync.stdout)")
            }
            #expect(Set(SpriteMirrorTests.tree(spriteFolder).keys) == Set(lostSprites.dropFirst(4)))
            #expect(Set(SpriteMirrorTests.tree(cryFolder).keys) == Set(lostCries.dropFirst(4)))
            let latest = try #require(try Self.json(try await cli.run(["status", "--json"]).stdout)["latest"] as? [String: Any])
            #expect(latest["sprites_missing"] as? Int == 8, "\(latest)")
            // serve no longer links the dropped ones locally: upstream's links stand.
            for (path, served) in zip(lostPaths, try await Self.servedSpriteLinks(cli.mirror, lostPaths)) {
                #expect(served.link == LinkedFilesTests.spritePrefix + path, "\(path): \(served)")
            }

            // Files no version holds any more are missing upstream, as ever: recorded, exit 0.
            try await night(4, change: nil) { sync, _ in
                #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
                #expect(sync.stdout.contains("no changes since version 5") && Self.warnings(sync.stdout).isEmpty, "\(sync.stdout)")
                #expect(sync.stdout.contains("8 sprite or cry file(s) missing upstream (404), recorded"), "\(sync.stdout)")
            }
            #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)
        }
    }

    /// A night whose host answers 404 for every file and whose source has a document that
    /// does not parse: nothing published (exit 1). The same sync again, the document
    /// mended, resumes that run and carries every held file, the resumed document's too;
    /// a `full` on that host carries them as well.
    @Test func aResumedRunStillCarriesWhatItsHostLost() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("api-data")
            try FileManager.default.copyItem(at: Self.sample, to: source)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let arguments = { (mode: String, server: StandInServer) in
                [mode, "--source", source.path, "--sprites", "default", "--cries", "latest",
                 "--sprite-source", server.spriteBaseURL.absoluteString, "--cry-source", server.cryBaseURL.absoluteString]
            }
            let port = try await withStandInServer(root: Self.sample) { server -> Int in
                let full = try await cli.run(arguments("full", server))
                try #require(full.status == 0, "\(full.stderr)")
                return server.port
            }
            let sprites = SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("sprites"))
            let cries = SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("cries"))
            let document = source.appendingPathComponent(Self.changing)
            let good = try Data(contentsOf: document)
            try Data("{ not json".utf8).write(to: document)
            var options = StandInOptions(root: Self.sample)
            options.port = port
            options.fileHostFault = "404"
            try await withStandInServer(options) { server in
                let broken = try await cli.run(arguments("sync", server))
                #expect(broken.status == 1, "\(broken.stdout) \(broken.stderr)")
                try good.write(to: document)
                try Self.setBaseExperience(source, 296)
                let resumed = try await cli.run(arguments("sync", server))
                #expect(resumed.status == 2, "\(resumed.stdout) \(resumed.stderr)")
                #expect(resumed.stderr.contains("resuming the sync run"), "\(resumed.stderr)")
                #expect(resumed.stdout.contains("published version 2"), "\(resumed.stdout)")
                let warnings = Self.warnings(resumed.stdout)
                #expect(warnings.contains { $0.contains("sprites: \(sprites.count) carried from the version before (\(sprites.count) missing at their host") },
                        "\(resumed.stdout)")
                #expect(warnings.contains { $0.contains("cries: \(cries.count) carried from the version before (\(cries.count) missing at their host") },
                        "\(resumed.stdout)")

                // A `full` asks for every file unconditionally: the same files are carried.
                let full = try await cli.run(arguments("full", server))
                #expect(full.status == 2 && full.stdout.contains("published version 3"), "\(full.stdout) \(full.stderr)")
                #expect(Self.warnings(full.stdout).contains { $0.contains("sprites: \(sprites.count) carried from the version before (\(sprites.count) missing") },
                        "\(full.stdout)")
            }
            #expect(SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("sprites")) == sprites)
            #expect(SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("cries")) == cries)
            #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)
        }
    }

    /// A store an older build made (no `version_carried.missing`, a `last_run_carried` with
    /// no `missing`): `diff` and `status` read it (0 missing), and the next run adds the
    /// column and counts again.
    @Test func aStoreWithoutMissingCountsIsMigrated() async throws {
        try await withTemporaryDirectory { scratch in
            let copy = scratch.appendingPathComponent("upstream")
            try FileManager.default.copyItem(at: Self.sample, to: copy)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let port = try await withStandInServer(root: copy) { server -> Int in
                let full = try await cli.run(FileHostFailureTests.arguments("full", server, cries: "latest"))
                try #require(full.status == 0, "\(full.stderr)")
                return server.port
            }
            try Self.setBaseExperience(copy, 296)
            var options = StandInOptions(root: copy)
            options.port = port
            options.deployHash = "changed"
            options.fileHostFault = "404"
            options.fileHostFaultTree = "cries"
            let cries = SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("cries")).count
            try await withStandInServer(options) { server in
                let sync = try await cli.run(FileHostFailureTests.arguments("sync", server, cries: "latest"))
                #expect(sync.status == 2 && sync.stdout.contains("published version 2"), "\(sync.stdout) \(sync.stderr)")
                do {
                    let database = try Database(path: cli.mirror.appendingPathComponent("store.sqlite").path)
                    try database.execute("""
                        ALTER TABLE version_carried DROP COLUMN missing;
                        UPDATE meta SET value = replace(value, '"missing":', '"older":') WHERE key = 'last_run_carried';
                        """)
                }
                let diff = try Self.json(try await cli.run(["diff", "--json"]).stdout)
                let carried = try #require(diff["carried"] as? [[String: Any]])
                #expect(carried.count == 1 && carried[0]["carried"] as? Int == cries && carried[0]["missing"] as? Int == 0, "\(carried)")
                let status = try await cli.run(["status", "--json"])
                let last = try #require(try Self.json(status.stdout)["last_run_carried"] as? [String: Any], "\(status.stdout)")
                #expect((last["files"] as? [[String: Any]])?.first?["missing"] as? Int == 0, "\(last)")

                let again = try await cli.run(FileHostFailureTests.arguments("sync", server, cries: "latest"))
                #expect(again.status == 2 && again.stdout.contains("no changes since version 2"), "\(again.stdout) \(again.stderr)")
                #expect(again.stdout.contains("cries: \(cries) carried from the version before (\(cries) missing"), "\(again.stdout)")
                let database = try Database(path: cli.mirror.appendingPathComponent("store.sqlite").path)
                let columns = try database.rows("PRAGMA table_info(version_carried)") { $0.text(1) }
                #expect(columns.contains("missing"), "\(columns)")
            }
        }
    }

    /// The host answers 500 for every file but those it lost, which answer 404: given up
    /// after about as many files as a host that answers only 500 (counted at the server),
    /// every held file carried, the 404'd ones among them said apart.
    @Test func aHostThatKeepsItsNotFoundsIsGivenUp() async throws {
        try await withTemporaryDirectory { scratch in
            let changed = try FileHostFailureTests.changedSample(in: scratch)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let port = try await withStandInServer(root: Self.sample) { server -> Int in
                let full = try await cli.run(Self.everyFile("full", server))
                try #require(full.status == 0, "\(full.stderr)")
                return server.port
            }
            let sprites = SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("sprites"))
            let cries = SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("cries"))
            let held = sprites.count + cries.count
            try #require(held >= 60, "\(held) files")
            // One file in three lost, spread over the whole order the run asks in.
            let lost = (sprites.keys.sorted() + cries.keys.sorted()).enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
            var options = StandInOptions(root: changed)
            options.port = port
            options.deployHash = "changed"
            options.fileHostFault = "500-but-missing"
            options.spriteMissing = lost.joined(separator: ",")
            try await withStandInServer(options) { server in
                // The default --timeout: its silence budget (2 minutes) is far off, the count decides.
                let sync = try await cli.run(Self.everyFile("sync", server) + ["--concurrency", "4"])
                #expect(sync.status == 2, "\(sync.stdout) \(sync.stderr)")
                #expect(sync.stdout.contains("published version 2"), "\(sync.stdout)")
                #expect(sync.stderr.contains("giving up on 127.0.0.1:\(port) for the rest of this run: it delivered none of its last"),
                        "\(sync.stderr)")
                let stats = try await server.stats()
                let asked = stats.byPath.filter { $0.key.hasPrefix("/PokeAPI/") }
                // 20 files without a delivery, 5 of them failed, plus those in flight: a few
                // dozen requests (5 attempts per failed file), not every file of the trees.
                #expect(asked.count < 45, "\(asked.count) of \(held) files asked for")
                #expect(asked.values.reduce(0, +) < 160, "\(asked.values.reduce(0, +)) requests")
            }
            #expect(SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("sprites")) == sprites)
            #expect(SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("cries")) == cries)
        }
    }

    /// A healthy host whose documents link a run of more than 20 files it never had (404,
    /// never held) before the files it has: not given up, every file asked for, exit 0.
    @Test func aRunOfNeverHeldNotFoundsDoesNotGiveUpAHealthyHost() async throws {
        try await withTemporaryDirectory { scratch in
            let probe = try LinkedFilesTests.links(Self.sample).sprites.sorted()
            try #require(probe.count >= 60, "\(probe.count) sprites")
            var options = StandInOptions(root: Self.sample)
            // The first 30 in path order, the order the run asks in, are missing upstream.
            options.spriteMissing = probe.prefix(30).joined(separator: ",")
            try await withStandInServer(options) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(Self.everyFile("full", server) + ["--concurrency", "1"])
                #expect(full.status == 0, "\(full.stdout) \(full.stderr)")
                #expect(!full.stderr.contains("giving up"), "\(full.stderr)")
                #expect(full.stdout.contains("30 sprite or cry file(s) missing upstream (404), recorded"), "\(full.stdout)")
                #expect(Set(SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("sprites")).keys) == Set(probe.dropFirst(30)))
            }
        }
    }
}
