import Foundation
import Testing
@testable import PokeSyncCore
import PokedexReader

/// A file host's bad night on an update night never costs phones their bundle: the export
/// writes what the version holds, names what it lacks (its output, the manifest's
/// `missing_sprites`), a device installs it and has no file for those sprites, and the
/// next good night's delta brings them. An old version that cannot be built costs its
/// devices a delta, never the newest bundle and index.
@Suite("Bundles after a file host's bad night", .serialized)
struct BundleHostFailureTests {
    /// A copy of the sample whose pokemon 1020 links a sprite no version has held yet (a
    /// new pokemon's sprite, as upstream adds them).
    static let newSprite = "sprites/pokemon/99020.png"

    static func sampleWithNewSprite(in scratch: URL) throws -> URL {
        let copy = scratch.appendingPathComponent("new-sprite-sample")
        try FileManager.default.copyItem(at: TestPaths.sample2026, to: copy)
        let file = TestPaths.document(in: copy, kind: "pokemon", id: 1020)
        let text = try String(contentsOf: file, encoding: .utf8)
        let old = "/sprites/master/sprites/pokemon/1020.png\""
        #expect(text.contains(old))
        try text.replacingOccurrences(of: old, with: "/sprites/master/\(newSprite)\"").write(to: file, atomically: true, encoding: .utf8)
        return copy
    }

    /// The manifest of a bundle or delta in `bundles`, read with the system's tar.
    static func manifest(_ bundles: URL, _ name: String) async throws -> [String: Any] {
        let text = try await runTool("tar", ["xzf", bundles.appendingPathComponent(name).path, "-O", "manifest.json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func install(_ cli: PokesyncCLI, device: URL, bundles: URL, version: Int) async throws -> String {
        let install = try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false)
        #expect(install.status == 0 && install.stdout.contains("installed version \(version)"), "\(install.stdout) \(install.stderr)")
        return install.stdout
    }

    @Test func aBadNightsBundleLacksTheNewSpritesAndTheNextDeltaBringsThem() async throws {
        try await withTemporaryDirectory { scratch in
            let changed = try Self.sampleWithNewSprite(in: scratch)
            let device = scratch.appendingPathComponent("device")
            var cli: PokesyncCLI!
            var bundles: URL!
            // Night 1, a good host: version 1, its bundle, a device on it.
            try await FileHostFailureTests.withBadNight(scratch, fault: "500", tree: "sprites", firstCries: "none",
                                                        root: changed) { runner, server in
                cli = runner
                bundles = cli.mirror.appendingPathComponent("bundles")
                // (withBadNight ran the first full against a good host before turning it bad.)
                let first = try await cli.run(["export"])
                #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
                _ = try await Self.install(cli, device: device, bundles: bundles, version: 1)

                // Night 2: the documents link a new sprite and its host answers 500.
                let sync = try await cli.run(FileHostFailureTests.arguments("sync", server, cries: "none", extra: ["--timeout", "1", "--revalidate"]))
                #expect(sync.status == 2 && sync.stdout.contains("published version 2"), "\(sync.stdout) \(sync.stderr)")
                let export = try await cli.run(["export"])
                #expect(export.status == 2, "\(export.stdout) \(export.stderr)")
                let warning = try #require(export.stdout.split(separator: "\n").last)
                #expect(warning.hasPrefix("warning: version 2's bundle lacks 1 sprite(s) --sprites default asks for")
                        && warning.contains(Self.newSprite), "\(export.stdout)")
                let index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: bundles.appendingPathComponent("index.json")))
                #expect(index.latest == 2 && index.deltas.map(\.from) == [1], "\(export.stdout)")
                for name in ["pokedex-2.tar.gz", "pokedex-1-2.delta.tar.gz"] {
                    let missing = try await Self.manifest(bundles, name)["missing_sprites"] as? [String]
                    #expect(missing?.count == 1 && missing?.first?.hasSuffix("/" + Self.newSprite) == true, "\(name): \(String(describing: missing))")
                }
                #expect(try await cli.run(["verify", bundles.path], addMirror: false).status == 0)
                // The device takes it, and has no file for the sprite it lacks.
                #expect(try await Self.install(cli, device: device, bundles: bundles, version: 2).contains("delta from 1"))
                let pokedex = try Pokedex(folder: device)
                let sprite = try #require(try pokedex.pokemon(id: 1020)?.sprite("front_default"))
                #expect(sprite.path == nil && pokedex.fileURL(for: sprite) == nil)
                #expect(sprite.url.absoluteString.hasSuffix("/" + Self.newSprite))
                // A quiet night after: the same bundle kept, the gap said as a note, exit 0
                // (the night that wrote the bundle said it; a quiet night stays quiet).
                let again = try await cli.run(["export"])
                #expect(again.status == 0 && again.stdout.contains("kept"), "\(again.stdout)")
                #expect(again.stdout.contains("note: version 2's bundle lacks 1 sprite(s)") && !again.stdout.contains("warning"),
                        "\(again.stdout)")
            }

            // Night 3, the host is back: the sprite is fetched, and the delta from 2 brings it.
            try await withStandInServer(root: changed) { server in
                let sync = try await cli.run(FileHostFailureTests.arguments("sync", server, cries: "none"))
                #expect(sync.status == 0 && sync.stdout.contains("published version 3"), "\(sync.stdout) \(sync.stderr)")
            }
            let export = try await cli.run(["export"])
            #expect(export.status == 0 && !export.stdout.contains("warning"), "\(export.stdout) \(export.stderr)")
            let delta = try await Self.manifest(bundles, "pokedex-2-3.delta.tar.gz")
            #expect(delta["missing_sprites"] == nil)
            let files = try #require(delta["files"] as? [[String: Any]]).compactMap { $0["path"] as? String }
            #expect(files.contains(Self.newSprite), "\(files)")
            #expect(try await Self.manifest(bundles, "pokedex-3.tar.gz")["missing_sprites"] == nil)
            #expect(try await Self.install(cli, device: device, bundles: bundles, version: 3).contains("delta from 2"))
            let pokedex = try Pokedex(folder: device)
            let sprite = try #require(try pokedex.pokemon(id: 1020)?.sprite("front_default"))
            #expect(sprite.path == Self.newSprite)
            let file = try #require(pokedex.fileURL(for: sprite))
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
    }

    /// The same bad night through the nightly job: it publishes, exports the bundle without
    /// the new sprite, runs the publish hook, logs both WARNING lines and exits 2 with the
    /// log's tail (what cron mails) naming the sprite; the next good night exits 0.
    @Test func theNightlyJobSaysTheBundleLacksSpritesAndStillPublishesIt() async throws {
        try await withTemporaryDirectory { scratch in
            let changed = try Self.sampleWithNewSprite(in: scratch)
            let (hook, record) = try CronJobTests.recordingHook(in: scratch)
            var cli: PokesyncCLI!
            var port = 0
            try await FileHostFailureTests.withBadNight(scratch, fault: "500", tree: "sprites", firstCries: "none",
                                                        root: changed) { runner, server in
                cli = runner
                port = server.port
                let night = try await CronJobTests().nightWithOutput(cli.mirror, publish: hook, extra: ["--timeout", "1", "--revalidate"])
                #expect(night.status == 2, "\(night.log)")
                #expect(night.log.contains("WARNING: a file host failed or lost files"), "\(night.log)")
                #expect(night.log.contains("WARNING: exported, but not all of it"), "\(night.log)")
                #expect(night.mail.contains("warning: version 2's bundle lacks 1 sprite(s)") && night.mail.contains(Self.newSprite),
                        "\(night.mail)")
                #expect(night.log.contains("done, exit 2"))
                #expect(try String(contentsOf: record, encoding: .utf8).contains("published \(cli.mirror.path)/bundles"))
                let bundles = cli.mirror.appendingPathComponent("bundles")
                let index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: bundles.appendingPathComponent("index.json")))
                #expect(index.latest == 2)
            }
            // The host is back, where mirror.json says it is.
            var options = StandInOptions(root: changed)
            options.port = port
            try await withStandInServer(options) { _ in
                let night = try await CronJobTests().nightWithOutput(cli.mirror, publish: hook)
                #expect(night.status == 0 && night.log.contains("published version 3") && !night.log.contains("WARNING"), "\(night.log)")
            }
        }
    }

    /// Version 1 was mirrored without sprites; version 2 with them. The nightly export of
    /// version 2 with sprites cannot build a delta from version 1 (never selected): it says
    /// so and writes the bundle and the index; exporting version 1 itself with sprites is
    /// the operator's mistake, exit 64 naming the set it was mirrored with.
    @Test func anOldVersionThatCannotBeBuiltCostsADeltaNotTheBundle() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let bundles = cli.mirror.appendingPathComponent("bundles")
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let source = ["--source", server.baseURL.absoluteString, "--sprite-source", server.spriteBaseURL.absoluteString]
                #expect(try await cli.run(["full", "--sprites", "none"] + source).status == 0)
                let sync = try await cli.run(["sync", "--sprites", "default"] + source)
                #expect(sync.status == 0 && sync.stdout.contains("published version 2"), "\(sync.stdout) \(sync.stderr)")
            }
            let export = try await cli.run(["export", "--sprites", "default"])
            #expect(export.status == 2, "\(export.stdout) \(export.stderr)")
            let lines = export.stdout.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("wrote ") && $0.contains("pokedex-2.tar.gz") }, "\(export.stdout)")
            #expect(lines.contains("index.json names version 2 and 0 delta(s)"), "\(export.stdout)")
            #expect(lines.last?.hasPrefix("warning: no delta from version 1: it cannot be built (version 1 was mirrored with --sprites none") == true,
                    "\(export.stdout)")
            let index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: bundles.appendingPathComponent("index.json")))
            #expect(index.latest == 2 && index.deltas.isEmpty)
            // The next export keeps the bundle and tries the delta again: the same gap, a
            // note, exit 0, so the nights until version 1 is pruned are quiet.
            let again = try await cli.run(["export", "--sprites", "default"])
            #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
            #expect(again.stdout.split(separator: "\n").last?.hasPrefix("note: no delta from version 1: it cannot be built") == true,
                    "\(again.stdout)")

            let old = try await cli.run(["export", "--version", "1", "--sprites", "default"])
            #expect(old.status == 64, "\(old.stdout) \(old.stderr)")
            #expect(old.stderr.contains("version 1 was mirrored with --sprites none, which does not select")
                    && old.stderr.contains(cli.mirror.appendingPathComponent("mirror.json").path), "\(old.stderr)")
        }
    }
}
