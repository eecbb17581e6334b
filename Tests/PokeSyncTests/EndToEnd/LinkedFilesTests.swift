import Foundation
import PokeSQLite
import Testing
@testable import PokeSyncCore

/// Every file the API links (<doc:PokeSyncCore/Sources#Linked-files>): the sprites of pokemon,
/// forms, items and types with `--sprites all`, and the cries with `--cries`, end to end
/// on the whole-API sample served by the stand-in.
@Suite("Linked files: sprites of every kind and cries, end to end", .serialized)
struct LinkedFilesTests {
    static let whole = TestPaths.fixtures.appendingPathComponent("whole-2026-08-08", isDirectory: true)
    static let spritePrefix = LinkedTree.sprites.upstreamPrefix + "sprites/"
    static let cryPrefix = LinkedTree.cries.upstreamPrefix + "cries/"

    /// Every raw.githubusercontent.com link of every document of an api-data tree: tree
    /// path by tree ("sprites", "cries"), with the kinds that link them.
    static func links(_ root: URL) throws -> (sprites: Set<String>, cries: Set<String>, kinds: Set<String>) {
        var sprites = Set<String>(), cries = Set<String>(), kinds = Set<String>()
        func walk(_ value: Any, kind: String) {
            if let object = value as? [String: Any] {
                object.values.forEach { walk($0, kind: kind) }
            } else if let array = value as? [Any] {
                array.forEach { walk($0, kind: kind) }
            } else if let text = value as? String {
                if text.hasPrefix(spritePrefix) {
                    sprites.insert(String(text.dropFirst(spritePrefix.count)))
                    kinds.insert(kind)
                } else if text.hasPrefix(cryPrefix) {
                    cries.insert(String(text.dropFirst(cryPrefix.count)))
                    kinds.insert(kind)
                }
            }
        }
        let api = root.appendingPathComponent("api/v2")
        for kind in try FileManager.default.contentsOfDirectory(atPath: api.path) where !kind.hasSuffix(".json") {
            let folder = api.appendingPathComponent(kind)
            for entry in try FileManager.default.contentsOfDirectory(atPath: folder.path) where Int(entry) != nil {
                let data = try Data(contentsOf: folder.appendingPathComponent("\(entry)/index.json"))
                walk(try JSONSerialization.jsonObject(with: data), kind: kind)
            }
        }
        return (sprites, cries, kinds)
    }

    static func arguments(_ mode: String, _ server: StandInServer, sprites: String = "all", cries: String = "all") -> [String] {
        [mode, "--source", server.baseURL.absoluteString, "--kinds", "all",
         "--sprite-source", server.spriteBaseURL.absoluteString, "--sprites", sprites,
         "--cry-source", server.cryBaseURL.absoluteString, "--cries", cries]
    }

    /// `full --kinds all --sprites all --cries all`: both trees hold every file the sample
    /// links, each fetched once; cries are Ogg streams; the export is still upstream's bytes.
    @Test func aFullRunMirrorsEveryLinkedFile() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: Self.whole) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(Self.arguments("full", server))
                #expect(full.status == 0, "\(full.stderr)")
                let expected = try Self.links(Self.whole)
                #expect(expected.kinds == ["pokemon", "pokemon-form", "item", "type"])
                #expect(expected.cries.count >= 7)
                let sprites = SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("sprites"))
                let cries = SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("cries"))
                #expect(Set(sprites.keys) == expected.sprites)
                #expect(Set(cries.keys) == expected.cries)
                #expect(sprites.keys.contains("items/master-ball.png"))
                #expect(sprites.keys.contains { $0.hasPrefix("types/") })
                for (path, bytes) in cries {
                    #expect(ImageCheck.problem([UInt8](bytes), fileExtension: "ogg") == nil, "\(path)")
                }
                // A file linked by several documents is fetched once.
                let stats = try await server.stats()
                let files = stats.byPath.filter { $0.key.hasPrefix("/PokeAPI/") }
                #expect(files.count == expected.sprites.count + expected.cries.count && files.values.allSatisfy { $0 == 1 })

                let status = try await cli.run(["status"])
                #expect(status.stdout.contains("\(expected.cries.count) cries (all)"), "\(status.stdout)")
                let verify = try await cli.run(["verify", cli.mirror.path], addMirror: false)
                #expect(verify.status == 0, "\(verify.stdout)")
                let tree = scratch.appendingPathComponent("data")
                #expect(try await cli.run(["export", "--format", "api-data", "--out", tree.path]).status == 0)
                try WholeAPITests.expectSameTree(Self.whole, tree)

                // The no-change sync: the lists and one conditional request per file, no bytes.
                try await server.resetStats()
                let sync = try await cli.run(Self.arguments("sync", server))
                #expect(sync.status == 0 && sync.stdout.contains("no changes since version 1"), "\(sync.stdout) \(sync.stderr)")
                let after = try await server.stats()
                #expect((after.status["304"] ?? 0) >= expected.sprites.count + expected.cries.count, "\(after.status)")
            }
        }
    }

    /// An item sprite and a cry change upstream, another cry goes at its host while its
    /// document still links it (carried, then dropped by `--allow-shrink`): the diffs name
    /// them by tree, the trees follow, and prune frees the old objects.
    @Test func aSyncFollowsChangedAndRemovedFiles() async throws {
        try await withTemporaryDirectory { scratch in
            let mirror = scratch.appendingPathComponent("Mirror")
            let cli = PokesyncCLI(mirror: mirror)
            try await withStandInServer(root: Self.whole) { server in
                let full = try await cli.run(Self.arguments("full", server))
                #expect(full.status == 0, "\(full.stderr)")
            }
            let before = SpriteMirrorTests.tree(mirror.appendingPathComponent("cries"))
            let oldItem = try #require(SpriteMirrorTests.tree(mirror.appendingPathComponent("sprites"))["items/master-ball.png"])
            #expect(before["pokemon/legacy/1.ogg"] != nil && before["pokemon/latest/1.ogg"] != nil)

            var options = StandInOptions(root: Self.whole)
            options.spriteSalt = "changed"
            options.spriteSaltGlob = "items/master-ball.png,pokemon/latest/1.ogg"
            options.spriteMissing = "pokemon/legacy/1.ogg"
            try await withStandInServer(options) { server in
                // A cry its document still links, gone at its host: carried, until the
                // loss is accepted on purpose.
                let carried = try await cli.run(Self.arguments("sync", server))
                #expect(carried.status == 2, "\(carried.stdout) \(carried.stderr)")
                #expect(carried.stdout.contains("published version 2") && carried.stdout.contains("cries +0 -0 ~1"), "\(carried.stdout)")
                #expect(carried.stdout.contains("warning: cries: 1 carried from the version before (1 missing at their host: 404/410)"),
                        "\(carried.stdout)")
                let sync = try await cli.run(Self.arguments("sync", server) + ["--allow-shrink"])
                #expect(sync.status == 0, "\(sync.stderr)")
                #expect(sync.stdout.contains("published version 3"), "\(sync.stdout)")
                #expect(sync.stdout.contains("cries: 1 file(s) of version 2 dropped"), "\(sync.stdout)")
                #expect(sync.stdout.contains("cries +0 -1 ~0"), "\(sync.stdout)")
            }
            let diff = try await cli.run(["diff", "1", "3", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
            let files = try #require(object["files"] as? [[String: String]])
            #expect(Set(files) == [["tree": "sprites", "path": "items/master-ball.png", "change": "changed"],
                                   ["tree": "cries", "path": "pokemon/latest/1.ogg", "change": "changed"],
                                   ["tree": "cries", "path": "pokemon/legacy/1.ogg", "change": "removed"]])
            let summary = try #require(object["summary"] as? [String: [String: Int]])
            #expect(summary["cries"] == ["added": 0, "removed": 1, "changed": 1])
            #expect(summary["sprites"] == ["added": 0, "removed": 0, "changed": 1])
            let text = try await cli.run(["diff", "1", "3"])
            #expect(text.stdout.contains("~ sprites/items/master-ball.png") && text.stdout.contains("- cries/pokemon/legacy/1.ogg"),
                    "\(text.stdout)")

            // The trees follow the new version.
            let after = SpriteMirrorTests.tree(mirror.appendingPathComponent("cries"))
            #expect(after["pokemon/legacy/1.ogg"] == nil)
            #expect(after["pokemon/latest/1.ogg"] != nil && after["pokemon/latest/1.ogg"] != before["pokemon/latest/1.ogg"])
            #expect(SpriteMirrorTests.tree(mirror.appendingPathComponent("sprites"))["items/master-ball.png"] != oldItem)
            #expect(try await cli.run(["verify", mirror.path], addMirror: false).status == 0)

            // Prune frees the three objects only versions 1 and 2 named.
            let objects = mirror.appendingPathComponent("objects")
            let count = { (FileManager.default.enumerator(atPath: objects.path)?.allObjects as? [String] ?? []).filter { $0.count > 60 }.count }
            let beforePrune = count()
            let prune = try await cli.run(["prune", "--keep", "1"])
            #expect(prune.status == 0, "\(prune.stderr)")
            #expect(count() == beforePrune - 3, "\(prune.stdout)")
            #expect(try await cli.run(["verify", mirror.path], addMirror: false).status == 0)
        }
    }

    /// kill -9 while the linked files are fetched: the same command resumes to the same
    /// trees, fetching again only what was in flight.
    @Test func aRunKilledAmongTheFilesResumesToTheSameTrees() async throws {
        try await withTemporaryDirectory { scratch in
            let options = StandInOptions(root: Self.whole)
            try await withStandInServer(options) { server in
                let arguments = Self.arguments("full", server) + ["--concurrency", "4"]
                let reference = PokesyncCLI(mirror: scratch.appendingPathComponent("Reference"))
                #expect(try await reference.run(arguments).status == 0)
                let requests = try await server.stats().byPath
                let documents = requests.filter { !$0.key.hasPrefix("/PokeAPI/") }.values.reduce(0, +)
                let files = requests.filter { $0.key.hasPrefix("/PokeAPI/") }.count
                try await server.resetStats()

                // Twenty-five requests a second (the run's own --rate, whatever the machine's
                // load): the documents come first, then the files. The kill comes from a thread
                // of its own when about half the files are in, so a test scheduler busy with
                // other tests cannot delay it past the run's end (polling the stand-in could).
                let rate = 25.0
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let child = cli.start(arguments + ["--rate", "\(Int(rate))"])
                try child.process.run()
                let pid = child.process.processIdentifier
                let killAfter = (Double(documents) + Double(files) / 2) / rate
                Thread.detachNewThread {
                    Thread.sleep(forTimeInterval: killAfter)
                    kill(pid, SIGKILL)
                }
                await child.waitUntilExit()
                #expect(child.process.terminationReason == .uncaughtSignal, "the run ended before it could be killed: nothing was tested")
                let fetchedBefore = try await server.stats().byPath.filter { $0.key.hasPrefix("/PokeAPI/") }.count
                #expect(fetchedBefore > 0 && fetchedBefore < files, "killed among the files: \(fetchedBefore) of \(files)")
                let resumed = try await cli.run(arguments)
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(resumed.stderr.contains("resuming"), "\(resumed.stderr)")
                for tree in ["sprites", "cries"] {
                    let expected = SpriteMirrorTests.tree(reference.mirror.appendingPathComponent(tree))
                    #expect(!expected.isEmpty && SpriteMirrorTests.tree(cli.mirror.appendingPathComponent(tree)) == expected, "\(tree)")
                }
                let again = try await server.stats().byPath.filter { $0.key.hasPrefix("/PokeAPI/") && $0.value > 1 }
                #expect(again.count <= 4, "fetched again: \(again)")
                #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)
            }
        }
    }

    /// A mirror made before linked files (only pokemon documents' sprite links stored, no
    /// cries, no cry set recorded) is migrated on its next run: a `sync --sprites all
    /// --cries all` whose documents are all unchanged (304s) still gets every
    /// item, type and form sprite and every cry, and a sync naming no cries keeps them.
    @Test func aStoreMadeBeforeLinkedFilesGetsThemOnItsNextSync() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: Self.whole) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(Self.arguments("full", server, sprites: "default", cries: "none"))
                #expect(full.status == 0, "\(full.stderr)")
                // As an older build left it: links of pokemon documents only, no cry lists,
                // no record of the rule, no cry set recorded for the version.
                do {
                    let database = try Database(path: cli.mirror.appendingPathComponent("store.sqlite").path)
                    try database.execute("""
                        UPDATE documents SET cry_refs = NULL;
                        UPDATE documents SET sprite_refs = NULL WHERE hash NOT IN
                            (SELECT hash FROM version_documents WHERE kind = 'pokemon');
                        DELETE FROM meta WHERE key = 'links_of_every_kind';
                        DELETE FROM version_cry_sets;
                        """)
                }
                let expected = try Self.links(Self.whole)
                let sync = try await cli.run(Self.arguments("sync", server))
                #expect(sync.status == 0, "\(sync.stderr)")
                // Every document came back 304: the links are the migrated ones.
                #expect(sync.stdout.contains("documents: 0 fetched"), "\(sync.stdout)")
                #expect(Set(SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("sprites")).keys) == expected.sprites)
                #expect(Set(SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("cries")).keys) == expected.cries)
                // The nightly sync names no --cries: the latest version's set is kept.
                let nightly = try await cli.run(["sync", "--source", server.baseURL.absoluteString,
                                           "--sprite-source", server.spriteBaseURL.absoluteString, "--sprites", "all",
                                           "--cry-source", server.cryBaseURL.absoluteString])
                #expect(nightly.status == 0 && nightly.stdout.contains("no changes since version 2"), "\(nightly.stdout)")
                #expect(Set(SpriteMirrorTests.tree(cli.mirror.appendingPathComponent("cries")).keys) == expected.cries)
            }
        }
    }

    /// `--cries`, `--cry-source` and mirror.json's `"cries"` are checked as `--sprites` is.
    @Test func wrongCrySettingsAreUsageErrors() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let bogus = try await cli.run(["full", "--source", Self.whole.path, "--cries", "loud"])
            #expect(bogus.status == 64 && bogus.stderr.contains("--cries takes none, latest, legacy or all"), "\(bogus.stderr)")
            let url = try await cli.run(["full", "--source", Self.whole.path, "--cries", "all", "--cry-source", "http://"])
            #expect(url.status == 64 && url.stderr.contains("--cry-source http://"), "\(url.stderr)")
            let folder = try await cli.run(["full", "--source", Self.whole.path, "--cries", "all",
                                      "--cry-source", scratch.appendingPathComponent("nowhere").path])
            #expect(folder.status != 0 && folder.stderr.contains("--cry-source folder does not exist"), "\(folder.stderr)")
            try FileManager.default.createDirectory(at: cli.mirror, withIntermediateDirectories: true)
            try Data(#"{"cries": 5}"#.utf8).write(to: cli.mirror.appendingPathComponent("mirror.json"))
            let config = try await cli.run(["sync", "--source", Self.whole.path])
            #expect(config.status == 64 && config.stderr.contains("\"cries\""), "\(config.stderr)")
            try Data(#"{"cries": "every"}"#.utf8).write(to: cli.mirror.appendingPathComponent("mirror.json"))
            let word = try await cli.run(["sync", "--source", Self.whole.path])
            #expect(word.status == 64 && word.stderr.contains("a cry set is none, latest, legacy or all"), "\(word.stderr)")
        }
    }

    /// Cry URLs on another host, leaving the tree, or naming HTML: refused, reported with
    /// the document, never fetched from the foreign host; the run still publishes.
    @Test func hostileCryURLsAreRefusedAndReported() async throws {
        try await withTemporaryDirectory { scratch in
            var foreignOptions = StandInOptions(root: Self.whole)
            foreignOptions.host = "127.0.0.2"
            try await withStandInServer(foreignOptions) { foreign in
                let source = scratch.appendingPathComponent("source")
                try FileManager.default.copyItem(at: Self.whole, to: source)
                func setCries(_ id: Int, _ cries: [String: String]) throws {
                    let file = source.appendingPathComponent("api/v2/pokemon/\(id)/index.json")
                    var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
                    document["cries"] = cries
                    try JSONSerialization.data(withJSONObject: document).write(to: file)
                }
                try setCries(1, ["latest": "http://127.0.0.2:\(foreign.port)/PokeAPI/cries/main/cries/pokemon/latest/1.ogg",
                                 "legacy": Self.cryPrefix + "pokemon/../../../escaped.ogg"])
                try setCries(2, ["latest": Self.cryPrefix + "pokemon/latest/2.ogg",
                                 "legacy": Self.cryPrefix + "pokemon/legacy/2.png"])
                // The cries clone holds an "Ogg" that is really HTML.
                let clone = scratch.appendingPathComponent("clone")
                try FileManager.default.createDirectory(at: clone.appendingPathComponent("cries/pokemon/latest"),
                                                        withIntermediateDirectories: true)
                try Data("<html>not a cry</html>".utf8).write(to: clone.appendingPathComponent("cries/pokemon/latest/2.ogg"))

                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(["full", "--source", source.path, "--kinds", "all", "--sprites", "none",
                                        "--cry-source", clone.path, "--cries", "all"])
                // The HTML "Ogg" fails (left for the next run, exit 2); the URLs are refused.
                #expect(full.status == 2, "\(full.stderr)")
                for fragment in ["127.0.0.2", "escaped.ogg", "pokemon/latest/2.ogg", "pokemon/legacy/2.png", "not an Ogg stream"] {
                    #expect(full.stdout.contains(fragment), "not reported: \(fragment)\n\(full.stdout)")
                }
                #expect(full.stdout.contains("pokemon/1:") && full.stdout.contains("pokemon/2:"))
                #expect(try await foreign.stats().requests == 0)
                let strays = try FileManager.default.subpathsOfDirectory(atPath: scratch.path).filter { $0.contains("escaped") }
                #expect(strays.isEmpty, "\(strays)")
                #expect(!FileManager.default.fileExists(atPath: cli.mirror.appendingPathComponent("cries/pokemon/latest/2.ogg").path))
                let status = try await cli.run(["status", "--json"])
                #expect(status.stdout.contains("not an Ogg stream") && status.stdout.contains("last_run_carried"), "\(status.stdout)")
            }
        }
    }
}
