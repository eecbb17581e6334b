import Foundation
import Testing
@testable import PokeSyncCore

/// `verify` while a run brings the sprite tree to the version it just published.
@Suite("Verify the sprite tree, end to end", .serialized)
struct TreeVerifyTests {
    /// A folder standing for a PokeAPI/sprites clone: a small PNG for every default sprite of both samples.
    static func makeClone(_ folder: URL) throws {
        let png = ImageCheck.pngSignature + [0, 0, 0, 0] + Array("IDAT".utf8) + [0, 0, 0, 0] + ImageCheck.pngEnd
        for sample in [TestPaths.sample2025, TestPaths.sample2026] {
            for url in try SpriteMirrorTests.expectedSprites(sample, .defaults) {
                let path = String(url.dropFirst(SpritePolicy.upstreamPrefix.count))
                let file = folder.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(png + Array(path.utf8)).write(to: file)
            }
        }
    }

    @Test func theTreeIsCheckedAgainstTheVersionItHolds() async throws {
        try await withTemporaryDirectory { scratch in
            let clone = scratch.appendingPathComponent("clone")
            try Self.makeClone(clone)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let sprites = ["--sprite-source", clone.path, "--sprites", "default"]
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path] + sprites).status == 0)
            let tree = cli.mirror.appendingPathComponent("sprites")
            let treeOfVersion1 = scratch.appendingPathComponent("tree-1")
            try FileManager.default.copyItem(at: tree, to: treeOfVersion1)
            // Upstream redraws pikachu; the sync publishes version 2 with other sprites.
            try Data("redrawn".utf8).append(to: clone.appendingPathComponent("sprites/pokemon/25.png"))
            let sync = try await cli.run(["sync", "--source", TestPaths.sample2026.path] + sprites)
            #expect(sync.stdout.contains("published version 2"), "\(sync.stderr)")

            // The moment between the publish commit and the tree being brought to it (or
            // a crash there): the tree still holds version 1, and says so.
            try FileManager.default.removeItem(at: tree)
            try FileManager.default.copyItem(at: treeOfVersion1, to: tree)
            let store = try Store(layout: MirrorLayout(root: cli.mirror), create: false)
            try store.setMeta("sprite_tree_version", "1")
            let lagging = try await cli.run(["verify", cli.mirror.path], addMirror: false)
            #expect(lagging.status == 0, "\(lagging.stdout)")
            #expect(lagging.stdout.contains("note: the sprite tree holds version 1"))

            // Part way: a file of either version is right, and real damage is still found.
            try store.setMeta("sprite_tree_target", "2")
            let partWay = try await cli.run(["verify", cli.mirror.path], addMirror: false)
            #expect(partWay.status == 0, "\(partWay.stdout)")
            #expect(partWay.stdout.contains("part way from version 1 to 2"))
            try Data("scribbled".utf8).write(to: tree.appendingPathComponent("pokemon/25.png"))
            let damaged = try await cli.run(["verify", cli.mirror.path], addMirror: false)
            #expect(damaged.status == 65)
            #expect(damaged.stdout.contains("sprites/pokemon/25.png: differs from version 1 or 2's sprite"))

            // The next run finishes the tree.
            #expect(try await cli.run(["sync", "--source", TestPaths.sample2026.path] + sprites).status == 0)
            let finished = try await cli.run(["verify", cli.mirror.path], addMirror: false)
            #expect(finished.status == 0, "\(finished.stdout)")
            #expect(!finished.stdout.contains("note:"))
        }
    }

    @Test func verifyBesideSpriteChangingSyncsFindsNoDamage() async throws {
        try await withTemporaryDirectory { scratch in
            let clone = scratch.appendingPathComponent("clone")
            try Self.makeClone(clone)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let sprites = ["--sprite-source", clone.path, "--sprites", "default"]
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path] + sprites).status == 0)
            var reports: [String] = []
            var verified = 0
            for round in 0..<4 {
                // Each round changes the sprites (one is added, one removed, between the samples).
                let sample = round % 2 == 0 ? TestPaths.sample2026 : TestPaths.sample2025
                let sync = cli.start(["sync", "--source", sample.path, "--allow-shrink"] + sprites)
                try sync.process.run()
                while sync.process.isRunning {
                    let verify = try await cli.run(["verify", cli.mirror.path], addMirror: false)
                    verified += 1
                    if verify.status != 0 { reports.append(verify.stdout + verify.stderr) }
                    try await Task.sleep(for: .milliseconds(50))  // leave the two cores to the tests running beside this one
                }
                await sync.waitUntilExit()
                #expect(sync.result().status == 0, "\(sync.result().stderr)")
            }
            #expect(verified > 0)
            #expect(reports.isEmpty, "\(reports.first ?? "")")
        }
    }
}

extension Data {
    func append(to file: URL) throws {
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: self)
        try handle.close()
    }
}
