import Foundation
import Testing
@testable import PokeSyncCore

/// Sprites over real HTTP and from a folder: sets, resumption, hostile URLs, sync.
@Suite("Sprite mirror, end to end", .serialized)
struct SpriteMirrorTests {
    /// Distinct sprite URLs of a sample selected by `set`, computed from its JSON.
    static func expectedSprites(_ sample: URL, _ set: SpriteSet) throws -> Set<String> {
        var urls = Set<String>()
        func walk(_ value: Any, _ path: String) {
            if let object = value as? [String: Any] {
                for (key, child) in object { walk(child, path.isEmpty ? key : path + "/" + key) }
            } else if let url = value as? String, set.selects(path) {
                urls.insert(url)
            }
        }
        // default, artwork and paths select among a pokemon's sprites; all is every sprite any
        // document links (a type's icons too: <doc:PokeSyncCore/Sources#Linked-files>).
        for (key, document) in try Samples.documents(sample) where key.hasPrefix("pokemon/") || set == .all {
            if let sprites = (document as? [String: Any])?["sprites"] { walk(sprites, "") }
        }
        return urls
    }

    /// Every file below `root`, relative path → bytes.
    static func tree(_ root: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        let walker = FileManager.default.enumerator(atPath: root.path)
        while let path = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            let url = root.appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                files[path] = FileManager.default.contents(atPath: url.path)
            }
        }
        return files
    }

    @Test(arguments: ["none", "default", "artwork", "all", "front_default,other/home/front_shiny"])
    func eachSpriteSetMirrorsWhatItSelects(set: String) async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString,
                                        "--sprite-source", server.spriteBaseURL.absoluteString, "--sprites", set])
                #expect(full.status == 0, "\(full.stderr)")
                let expected = try Self.expectedSprites(TestPaths.sample2026, try SpriteSet(parsing: set))
                let paths = Set(expected.map { String($0.dropFirst(SpritePolicy.upstreamPrefix.count + "sprites/".count)) })
                let files = Self.tree(cli.mirror.appendingPathComponent("sprites"))
                #expect(Set(files.keys) == paths)
                #expect(files.keys.contains { $0.hasPrefix("types/") } == (set == "all"), "type icons are mirrored by all only")
                for (path, bytes) in files {
                    let kind = String(path.split(separator: ".").last!)
                    #expect(ImageCheck.problem([UInt8](bytes), fileExtension: kind) == nil, "\(path)")
                    // Stored once: the tree file is a hard link to its object.
                    var info = stat()
                    stat(cli.mirror.appendingPathComponent("sprites/\(path)").path, &info)
                    #expect(info.st_nlink >= 2, "\(path)")
                }
                // Sprites shared by several documents are fetched once.
                let stats = try await server.stats()
                let spriteRequests = stats.byPath.filter { $0.key.hasPrefix("/PokeAPI/sprites/") }
                #expect(spriteRequests.count == paths.count && spriteRequests.values.allSatisfy { $0 == 1 })
            }
        }
    }

    @Test func spriteSourceFolderGivesTheSameTree() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let first = PokesyncCLI(mirror: scratch.appendingPathComponent("First"))
                #expect(try await first.run(["full", "--source", server.baseURL.absoluteString,
                                       "--sprite-source", server.spriteBaseURL.absoluteString, "--sprites", "all"]).status == 0)
                // A mirror folder has `sprites/` at the upstream paths: it serves as a clone of PokeAPI/sprites.
                let second = PokesyncCLI(mirror: scratch.appendingPathComponent("Second"))
                let fromFolder = try await second.run(["full", "--source", TestPaths.sample2026.path,
                                                 "--sprite-source", first.mirror.path, "--sprites", "all"])
                #expect(fromFolder.status == 0, "\(fromFolder.stderr)")
                let a = Self.tree(first.mirror.appendingPathComponent("sprites"))
                #expect(!a.isEmpty && a == Self.tree(second.mirror.appendingPathComponent("sprites")))
            }
        }
    }

    @Test func killedDuringSpritesResumesToTheIdenticalTree() async throws {
        try await withTemporaryDirectory { scratch in
            var options = StandInOptions(root: TestPaths.sample2026)
            // Slow enough that a loaded machine still polls the stand-in before the run ends.
            options.latencyMilliseconds = 80
            try await withStandInServer(options) { server in
                let arguments = ["full", "--source", server.baseURL.absoluteString, "--sprite-source",
                                 server.spriteBaseURL.absoluteString, "--sprites", "all", "--concurrency", "4"]
                let reference = PokesyncCLI(mirror: scratch.appendingPathComponent("Reference"))
                #expect(try await reference.run(arguments).status == 0)
                try await server.resetStats()

                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let child = cli.start(arguments)
                try child.process.run()
                while child.process.isRunning,
                      try await server.stats().byPath.keys.filter({ $0.hasPrefix("/PokeAPI/") }).count < 60 {
                    try await Task.sleep(for: .milliseconds(5))
                }
                #expect(child.process.isRunning, "the run ended before it could be killed: nothing was tested")
                kill(child.process.processIdentifier, SIGKILL)
                child.process.waitUntilExit()
                // And as a power cut might: one finished object emptied on disk.
                let objects = cli.mirror.appendingPathComponent("objects")
                let object = try #require(FileManager.default.enumerator(atPath: objects.path)?
                    .compactMap { $0 as? String }.first { $0.count > 60 })
                try Data().write(to: objects.appendingPathComponent(object))
                let resumed = try await cli.run(arguments)
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(resumed.stderr.contains("resuming"))
                let expected = Self.tree(reference.mirror.appendingPathComponent("sprites"))
                #expect(!expected.isEmpty && Self.tree(cli.mirror.appendingPathComponent("sprites")) == expected)
                let stats = try await server.stats()
                let again = stats.byPath.filter { $0.key.hasPrefix("/PokeAPI/") && $0.value > 1 }
                // At most the 4 in flight at the kill, and the one emptied on disk.
                #expect(again.count <= 5, "sprites fetched again: \(again)")
            }
        }
    }

    @Test func hostileSpriteURLsAreRefusedAndReported() async throws {
        try await withTemporaryDirectory { scratch in
            var foreignOptions = StandInOptions(root: TestPaths.sample2026)
            foreignOptions.host = "127.0.0.2"
            try await withStandInServer(foreignOptions) { foreign in
                // A source whose pikachu names hostile sprites.
                let source = scratch.appendingPathComponent("source")
                try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
                let file = source.appendingPathComponent("api/v2/pokemon/25/index.json")
                var pikachu = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
                var sprites = try #require(pikachu["sprites"] as? [String: Any])
                let upstream = SpritePolicy.upstreamPrefix + "sprites/"
                sprites["front_default"] = upstream + "../../../../escaped.png"
                sprites["back_default"] = upstream + "pokemon/%2e%2e/%2e%2e/%2e%2e/escaped2.png"
                sprites["front_shiny"] = "http://127.0.0.2:\(foreign.port)/PokeAPI/sprites/master/sprites/pokemon/25.png"
                sprites["back_shiny"] = upstream + "pokemon/not-an-image.png"
                sprites["front_female"] = "/etc/passwd"
                pikachu["sprites"] = sprites
                try JSONSerialization.data(withJSONObject: pikachu).write(to: file)
                // The sprite clone holds a "PNG" that is really HTML.
                let clone = scratch.appendingPathComponent("clone")
                try FileManager.default.createDirectory(at: clone.appendingPathComponent("sprites/pokemon"), withIntermediateDirectories: true)
                try Data("<html>not a png</html>".utf8).write(to: clone.appendingPathComponent("sprites/pokemon/not-an-image.png"))

                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(["full", "--source", source.path, "--sprite-source", clone.path, "--sprites", "all"])
                // The HTML "PNG" is a failure of its host, not a refusal: left for the next run (exit 2).
                #expect(full.status == 2, "\(full.stderr)")
                for fragment in ["escaped.png", "escaped2.png", "127.0.0.2", "not-an-image.png", "/etc/passwd"] {
                    #expect(full.stdout.contains(fragment), "not reported: \(fragment)")
                }
                #expect(full.stdout.contains("pokemon/25"))
                // Nothing was written outside Mirror/sprites and the objects, and the foreign host saw nothing.
                #expect(try await foreign.stats().requests == 0)
                let strays = try FileManager.default.subpathsOfDirectory(atPath: scratch.path).filter { $0.contains("escaped") }
                #expect(strays.isEmpty, "\(strays)")
                // The refusals are kept with every version that met them, not just the first.
                for version in 1...2 {
                    if version == 2 {
                        #expect(try await cli.run(["full", "--source", source.path, "--sprite-source", clone.path, "--sprites", "all"]).status == 2)
                    }
                    let status = try await cli.run(["status", "--json"])
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
                    let latest = try #require(object["latest"] as? [String: Any])
                    #expect(latest["number"] as? Int == version)
                    #expect(latest["sprites_refused"] as? Int == 4, "version \(version)")
                    // Every report is listed, not only counted.
                    let reports = try #require(latest["sprite_reports"] as? [[String: String]]).filter { $0["outcome"] == "refused" }
                    #expect(reports.count == 4)
                    #expect(reports.allSatisfy { $0["document"] == "pokemon/25" && !($0["reason"] ?? "").isEmpty })
                }
            }
        }
    }

    @Test func syncFollowsSpriteChangesAndRemovals() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let port = try await withStandInServer(root: TestPaths.sample2025) { server -> Int in
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString, "--sprite-source",
                                        server.spriteBaseURL.absoluteString, "--sprites", "default"])
                #expect(full.status == 0)
                return server.port
            }
            let before = Self.tree(cli.mirror.appendingPathComponent("sprites"))
            var options = StandInOptions(root: TestPaths.sample2026)
            options.port = port
            options.spriteSalt = "redrawn"
            options.spriteSaltGlob = "*/25.png"
            try await withStandInServer(options) { server in
                let sync = try await cli.run(["sync", "--source", server.baseURL.absoluteString, "--sprite-source",
                                        server.spriteBaseURL.absoluteString, "--sprites", "default"])
                #expect(sync.status == 0, "\(sync.stderr)")
                #expect(sync.stdout.contains("published version 2"))
            }
            let after = Self.tree(cli.mirror.appendingPathComponent("sprites"))
            #expect(before["pokemon/25.png"] != nil && before["pokemon/25.png"] != after["pokemon/25.png"])
            let expected = try Self.expectedSprites(TestPaths.sample2026, .defaults)
            #expect(Set(after.keys) == Set(expected.map { String($0.dropFirst(SpritePolicy.upstreamPrefix.count + 8)) }))
            let removed = Set(before.keys).subtracting(after.keys)
            #expect(!removed.isEmpty, "the crafted removal's sprite should leave the tree")
            let diff = try await cli.run(["diff", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
            let sprites = try #require((object["summary"] as? [String: Any])?["sprites"] as? [String: Int])
            #expect(sprites["changed"] == 1)
            #expect(sprites["removed"] == removed.count)
        }
    }
}

@Suite("Sprite tree repairs, end to end", .serialized)
struct SpriteTreeRepairTests {
    @Test func clashingTreePathsAreRefusedNotFatal() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
            let file = source.appendingPathComponent("api/v2/pokemon/789/index.json")
            var cosmog = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            var sprites = try #require(cosmog["sprites"] as? [String: Any])
            // A file where pikachu's sprite needs one, and a folder where it is a file.
            sprites["front_default"] = SpritePolicy.upstreamPrefix + "sprites/pokemon/25.png/x.png"
            cosmog["sprites"] = sprites
            try JSONSerialization.data(withJSONObject: cosmog).write(to: file)
            let clone = scratch.appendingPathComponent("clone/sprites/pokemon")
            try FileManager.default.createDirectory(at: clone, withIntermediateDirectories: true)
            let png = ImageCheck.pngSignature + [0, 0, 0, 0] + Array("IDAT".utf8) + [0, 0, 0, 0] + ImageCheck.pngEnd
            for id in ["25", "789", "790", "808", "824", "840", "999", "10158", "10199", "10213", "10312"] {
                try Data(png + Array(id.utf8)).write(to: clone.appendingPathComponent("\(id).png"))
            }
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let arguments = ["--source", source.path, "--sprite-source", scratch.appendingPathComponent("clone").path, "--sprites", "default"]
            let full = try await cli.run(["full"] + arguments)
            #expect(full.status == 0, "\(full.stderr)")
            #expect(full.stdout.contains("clashes with"))
            var isFolder: ObjCBool = true
            #expect(FileManager.default.fileExists(atPath: cli.mirror.appendingPathComponent("sprites/pokemon/25.png").path, isDirectory: &isFolder))
            #expect(!isFolder.boolValue)
            #expect(try await cli.run(["sync"] + arguments).status == 0)
        }
    }

    @Test func aCrashAfterPublishingIsFinishedByTheNextRun() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            let diffFile = cli.mirror.appendingPathComponent("diffs/1-2.json")
            let written = try Data(contentsOf: diffFile)
            // As if killed between the publish commit and writing its diff (the .txt,
            // written last, is what says the diff is whole).
            try FileManager.default.removeItem(at: cli.mirror.appendingPathComponent("diffs/1-2.txt"))
            let next = try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(next.status == 0)
            #expect(next.stderr.contains("wrote the diff of versions 1 and 2") || next.stdout.contains("wrote the diff of versions 1 and 2"))
            #expect(try Data(contentsOf: diffFile) == written)
            #expect(FileManager.default.fileExists(atPath: cli.mirror.appendingPathComponent("diffs/1-2.txt").path))
            // Files of that name from before version 2 was published (an earlier mirror in
            // this folder, rebuilt from version 1) are another diff: written again.
            for ext in ["json", "txt"] {
                try Data("stale".utf8).write(to: cli.mirror.appendingPathComponent("diffs/1-2.\(ext)"))
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 946_684_800)],
                                                      ofItemAtPath: cli.mirror.appendingPathComponent("diffs/1-2.\(ext)").path)
            }
            #expect(try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            #expect(try Data(contentsOf: diffFile) == written)
        }
    }
}
