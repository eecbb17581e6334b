import Foundation
import Testing
@testable import PokeSyncCore

/// A bare `sync` repeats the mirror's own choices (command line, then mirror.json, then the
/// latest version, then the defaults); a new mirror's first run writes mirror.json; the rate
/// is polite against pokeapi.co and its file hosts by default, and `status` says it.
@Suite("Mirror choices and the polite rate", .serialized)
struct MirrorChoicesTests {
    static func config(_ mirror: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: mirror.appendingPathComponent("mirror.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func aFirstRunWritesMirrorJSONAndABareSyncRepeatsItsChoices() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none", "--kinds", "pokemon,type"])
            try #require(full.status == 0, "\(full.stderr)")
            #expect(full.stderr.contains("wrote \(cli.mirror.standardizedFileURL.path)/mirror.json "), "\(full.stderr)")
            #expect(!full.stderr.contains("requests a second"), "a folder source has no cap: \(full.stderr)")
            let written = try Self.config(cli.mirror)
            #expect(written["source"] as? String == TestPaths.sample2025.standardizedFileURL.path)
            #expect(written["sprites"] as? String == "none" && written["kinds"] as? String == "pokemon,type")
            #expect(written["cries"] as? String == "none" && written["rate"] is NSNull && written["contact"] is NSNull)
            #expect(written["sprite_source"] as? String == LinkedTree.sprites.upstreamPrefix)
            // The file written parses as mirror.json does, unknown keys and all.
            _ = try MirrorConfig.parse(try Data(contentsOf: cli.mirror.appendingPathComponent("mirror.json")), name: "mirror.json")

            // A bare sync: the same source, kinds and sprites, so nothing changed.
            let bare = try await cli.run(["sync"])
            #expect(bare.status == 0 && bare.stdout.contains("no changes since version 1"), "\(bare.stdout)\(bare.stderr)")

            // A mirror with no mirror.json (made before this build, or the file removed):
            // the latest version's choices, not pokeapi.co and not the default sprites.
            try FileManager.default.removeItem(at: cli.mirror.appendingPathComponent("mirror.json"))
            let older = try await cli.run(["sync"])
            #expect(older.status == 0 && older.stdout.contains("no changes since version 1"), "\(older.stdout)\(older.stderr)")
            #expect(older.stdout.contains("0 requests"), "\(older.stdout)")
            // A mirror of one version is still new: it gets its mirror.json back, from that version.
            #expect(try Self.config(cli.mirror)["source"] as? String == TestPaths.sample2025.standardizedFileURL.path)

            // A choice given on the command line is recorded where mirror.json names another.
            try #"{"source": "\#(TestPaths.sample2025.path)", "sprites": "none"}"#
                .write(to: cli.mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
            let moved = try await cli.run(["sync", "--source", TestPaths.sample2026.path])
            #expect(moved.status == 0 && moved.stdout.contains("published version 2"), "\(moved.stderr)")
            #expect(moved.stderr.contains(#""source" is now"#), "\(moved.stderr)")
            let recorded = try Self.config(cli.mirror)
            #expect(recorded["source"] as? String == TestPaths.sample2026.standardizedFileURL.path)
            #expect(recorded["kinds"] == nil, "a key the file left out stays out (the latest version carries it)")
            let again = try await cli.run(["sync"])
            #expect(again.status == 0 && again.stdout.contains("no changes since version 2"), "\(again.stdout)\(again.stderr)")
            let versions = try await cli.run(["versions", "--json"])
            #expect(!versions.stdout.contains("pokeapi.co"))
        }
    }

    @Test func aBareSyncKeepsTheSpriteSourceOfTheLatestVersion() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString,
                                        "--sprite-source", server.spriteBaseURL.absoluteString, "--sprites", "default"])
                try #require(full.status == 0, "\(full.stderr)")
                try FileManager.default.removeItem(at: cli.mirror.appendingPathComponent("mirror.json"))
                // Only the stand-in is reachable: had the sync gone upstream for a sprite or
                // a document, it would have failed.
                let bare = try await cli.run(["sync"])
                #expect(bare.status == 0 && bare.stdout.contains("no changes since version 1"), "\(bare.stdout)\(bare.stderr)")
                #expect(!bare.stderr.contains("requests a second"))
            }
        }
    }

    @Test func aFullStoppedAfterItPublishedIsFinishedNotFetchedAgain() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let command = ["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]
            try #require(try await cli.run(command).status == 0)
            try #require(try await cli.run(command).status == 0)
            // As a kill just after the publish of version 2 leaves it: the diff not written,
            // the version not marked finished.
            let diffs = cli.mirror.appendingPathComponent("diffs")
            for name in try FileManager.default.contentsOfDirectory(atPath: diffs.path) {
                try FileManager.default.removeItem(at: diffs.appendingPathComponent(name))
            }
            try await runTool("sqlite3", [cli.mirror.appendingPathComponent("store.sqlite").path,
                                    "UPDATE meta SET value = '1' WHERE key = 'finished_version'"])
            let same = try await cli.run(command)
            #expect(same.status == 0, "\(same.stderr)")
            #expect(same.stderr.contains("stopped before it finished"), "\(same.stderr)")
            #expect(same.stdout.contains("published version 2") && same.stdout.contains("0 requests"), "\(same.stdout)")
            #expect(FileManager.default.fileExists(atPath: diffs.appendingPathComponent("1-2.txt").path))
            // Asked once more, it is a new full.
            let next = try await cli.run(command)
            #expect(next.status == 0 && next.stdout.contains("published version 3"), "\(next.stdout)\(next.stderr)")
            // A sync meanwhile finishes the stopped version itself: a full after it is a full.
            try await runTool("sqlite3", [cli.mirror.appendingPathComponent("store.sqlite").path,
                                    "UPDATE meta SET value = '2' WHERE key = 'finished_version'"])
            #expect(try await cli.run(["sync"]).stdout.contains("no changes since version 3"))
            let afterSync = try await cli.run(command)
            #expect(afterSync.stdout.contains("published version 4") && !afterSync.stderr.contains("stopped before"), "\(afterSync.stderr)")
            // Other choices are another full, never taken for the stopped one.
            try await runTool("sqlite3", [cli.mirror.appendingPathComponent("store.sqlite").path,
                                    "UPDATE meta SET value = '3' WHERE key = 'finished_version'"])
            let other = try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(other.status == 0 && other.stdout.contains("published version 5"), "\(other.stdout)\(other.stderr)")
        }
    }

    @Test func theRateIsPoliteAgainstPokeAPIAndItsFileHostsOnly() throws {
        let folder = MirrorChoices(source: "/srv/api-data", spriteSource: nil, sprites: .none, kinds: .default,
                                   cries: .none, crySource: nil)
        var settings = try RunSettings(mode: .sync, config: MirrorConfig())
        #expect(settings.rate(for: folder) == RateInForce(given: nil, fromCommandLine: false, choices: folder))
        #expect(settings.rate(for: folder).requestsPerSecond == nil)
        #expect(settings.rate(for: .defaults).requestsPerSecond == 20 && settings.rate(for: .defaults).origin == .polite)
        // Linked files from upstream reach raw.githubusercontent.com: polite too.
        var upstreamSprites = folder
        upstreamSprites.sprites = .defaults
        #expect(settings.rate(for: upstreamSprites).origin == .polite)
        upstreamSprites.spriteSource = "/srv/sprites"
        #expect(settings.rate(for: upstreamSprites).requestsPerSecond == nil)
        var cries = folder
        cries.cries = .latest
        #expect(settings.rate(for: cries).origin == .polite)
        var selfHosted = folder
        selfHosted.source = "http://127.0.0.1:8000/api/v2"
        #expect(settings.rate(for: selfHosted).requestsPerSecond == nil)
        var subdomain = folder
        subdomain.source = "https://beta.pokeapi.co/api/v2"
        #expect(settings.rate(for: subdomain).origin == .polite)
        settings.rate = 5
        #expect(settings.rate(for: .defaults) == RateInForce(given: 5, fromCommandLine: false, choices: .defaults))
        #expect(settings.rate(for: .defaults).origin == .mirrorJSON)
        // Upstream's own address as a linked-file source is upstream.
        #expect(MirrorChoices.linkedSource("https://raw.githubusercontent.com/PokeAPI/sprites/master", tree: .sprites) == nil)
        #expect(MirrorChoices.linkedSource("https://raw.githubusercontent.com/PokeAPI/cries/main/", tree: .cries) == nil)
    }

    /// Says the cap once, before anything is fetched; `status` shows the rate in force.
    /// The run reads its documents from a folder and would fetch their sprites from
    /// upstream (so the cap applies), but its one document does not parse: it fails with
    /// no sprite to fetch, and nothing leaves this machine.
    @Test func aRunReachingPokeAPISaysItsCapOnceAndStatusShowsIt() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("api-data")
            try FileManager.default.createDirectory(at: source.appendingPathComponent("api/v2/pokemon/1"), withIntermediateDirectories: true)
            try #"{"count": 1, "next": null, "previous": null, "results": [{"name": "bulbasaur", "url": "https://pokeapi.co/api/v2/pokemon/1/"}]}"#
                .write(to: source.appendingPathComponent("api/v2/pokemon/index.json"), atomically: true, encoding: .utf8)
            try "not json".write(to: source.appendingPathComponent("api/v2/pokemon/1/index.json"), atomically: true, encoding: .utf8)
            let upstream = PokesyncCLI(mirror: scratch.appendingPathComponent("Upstream"))
            let capped = try await upstream.run(["full", "--source", source.path, "--kinds", "pokemon", "--sprites", "default"])
            #expect(capped.status == 1, "\(capped.stderr)")
            #expect(capped.stderr.components(separatedBy: "requests a second").count == 2, "said once: \(capped.stderr)")
            #expect(!FileManager.default.fileExists(atPath: upstream.mirror.appendingPathComponent("mirror.json").path),
                    "a run that failed writes no mirror.json")
            // Its own sprite source: no cap, nothing said.
            let clone = scratch.appendingPathComponent("sprites-clone")
            try FileManager.default.createDirectory(at: clone, withIntermediateDirectories: true)
            let local = try await upstream.run(["full", "--source", source.path, "--kinds", "pokemon", "--sprites", "default",
                                          "--sprite-source", clone.path])
            #expect(local.status == 1 && !local.stderr.contains("requests a second"), "\(local.stderr)")

            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
            try #require(full.status == 0, "\(full.stderr)")
            let noCap = try await cli.run(["status"])
            #expect(noCap.stdout.contains("rate     no cap (default)"), "\(noCap.stdout)")
            try #"{"source": "https://pokeapi.co/api/v2"}"#
                .write(to: cli.mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
            let status = try await cli.run(["status"])
            #expect(status.stdout.contains("rate     20 requests/s (default for pokeapi.co)"), "\(status.stdout)")
            let json = try await cli.run(["status", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let rate = try #require(object["rate"] as? [String: Any])
            #expect(rate["requests_per_second"] as? Double == 20 && rate["from"] as? String == "default for pokeapi.co")
            try #"{"source": "https://pokeapi.co/api/v2", "rate": 2.5}"#
                .write(to: cli.mirror.appendingPathComponent("mirror.json"), atomically: true, encoding: .utf8)
            #expect(try await cli.run(["status"]).stdout.contains("rate     2.5 requests/s (mirror.json)"))
            // A mirror folder with no store yet says it too.
            let empty = scratch.appendingPathComponent("Empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let fresh = try await PokesyncCLI(mirror: empty).run(["status"])
            #expect(fresh.stdout.contains("rate     20 requests/s (default for pokeapi.co)"), "\(fresh.stdout)")
        }
    }
}
