import Foundation
import Testing

/// `export` (bundles) writes only into a folder of its own, and an index names only files
/// it checked.
@Suite("Bundle export safety, end to end")
struct BundleExportSafetyTests {
    /// A mirror of the 2025 sample (version 1), and the 2026 one (version 2) when asked.
    static func mirror(in scratch: URL, versions: Int = 1) async throws -> PokesyncCLI {
        let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
        #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
        if versions == 2 { #expect(try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0) }
        return cli
    }

    /// Every entry of `folder` with its bytes (nil for a folder).
    static func snapshot(_ folder: URL) throws -> [String: Data?] {
        var files: [String: Data?] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
        }
        return files
    }

    @Test func someoneElsesFolderIsRefusedAndKeptByteForByte() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(in: scratch)
            // Someone's own bundles, under names like export's.
            let theirs = scratch.appendingPathComponent("theirs")
            try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: true)
            try Data("{\"latest\": 9, \"mine\": true}\n".utf8).write(to: theirs.appendingPathComponent("index.json"))
            try Data("my backup".utf8).write(to: theirs.appendingPathComponent("pokedex-backup.tar.gz"))
            try Data("version nine".utf8).write(to: theirs.appendingPathComponent("pokedex-9.tar.gz"))
            // Another mirror's bundles folder, export's names only, but another lineage.
            let other = try await Self.mirror(in: scratch.appendingPathComponent("other"))
            #expect(try await other.run(["export", "--sprites", "none"]).status == 0)
            let otherBundles = other.mirror.appendingPathComponent("bundles")
            try? FileManager.default.removeItem(at: otherBundles.appendingPathComponent(".pokesync-bundles"))
            // A folder with a file of someone's, nothing like a bundle.
            let notes = scratch.appendingPathComponent("notes")
            try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
            try Data("notes".utf8).write(to: notes.appendingPathComponent("README.txt"))

            for folder in [theirs, otherBundles, notes] {
                let before = try Self.snapshot(folder)
                for _ in 0..<2 {
                    let export = try await cli.run(["export", "--sprites", "none", "--out", folder.path])
                    #expect(export.status == 64, "\(folder.lastPathComponent): \(export.stderr)")
                    #expect(export.stderr.contains(folder.path) && export.stderr.split(separator: "\n").count == 1, "\(export.stderr)")
                    #expect(try Self.snapshot(folder) == before, "\(folder.lastPathComponent)")
                }
            }
        }
    }

    @Test func ownFolderIsMarkedAndAnOlderUnmarkedOneAdopted() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(in: scratch)
            let empty = scratch.appendingPathComponent("empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            for folder in [scratch.appendingPathComponent("new"), empty, cli.mirror.appendingPathComponent("bundles")] {
                let export = try await cli.run(["export", "--sprites", "none"] + (folder.lastPathComponent == "bundles" ? [] : ["--out", folder.path]))
                #expect(export.status == 0, "\(export.stderr)")
                let marker = folder.appendingPathComponent(".pokesync-bundles")
                #expect(FileManager.default.fileExists(atPath: marker.path))
                // As written by an earlier pokesync: no marker. Adopted (its index is this mirror's).
                try FileManager.default.removeItem(at: marker)
                let index = try Data(contentsOf: folder.appendingPathComponent("index.json"))
                let again = try await cli.run(["export", "--sprites", "none"] + (folder.lastPathComponent == "bundles" ? [] : ["--out", folder.path]))
                #expect(again.status == 0, "\(again.stderr)")
                #expect(again.stdout.contains("kept"))
                #expect(FileManager.default.fileExists(atPath: marker.path))
                #expect(try Data(contentsOf: folder.appendingPathComponent("index.json")) == index)
            }
        }
    }

    @Test func aBundleCopiedUnderAnotherVersionsNameIsRefused() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(in: scratch, versions: 2)
            let out = scratch.appendingPathComponent("out")
            #expect(try await cli.run(["export", "--sprites", "none", "--version", "1", "--out", out.path]).status == 0)
            let one = out.appendingPathComponent("pokedex-1.tar.gz")
            let two = out.appendingPathComponent("pokedex-2.tar.gz")
            try FileManager.default.copyItem(at: one, to: two)
            let before = try Self.snapshot(out)
            let export = try await cli.run(["export", "--sprites", "none", "--out", out.path])
            #expect(export.status == 65, "\(export.stdout) \(export.stderr)")
            #expect(export.stderr.contains(two.path) && export.stderr.contains("version 1"), "\(export.stderr)")
            #expect(export.stderr.contains("--replace-damaged"), "\(export.stderr)")
            #expect(try Self.snapshot(out) == before)
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("index.json").path))
        }
    }

    @Test func aTruncatedBundleIsRefusedUntilReplacedOnRequest() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(in: scratch)
            let out = scratch.appendingPathComponent("out")
            #expect(try await cli.run(["export", "--sprites", "none", "--out", out.path]).status == 0)
            let bundle = out.appendingPathComponent("pokedex-1.tar.gz")
            let sound = try Data(contentsOf: bundle)
            let index = try Data(contentsOf: out.appendingPathComponent("index.json"))
            let half = sound.prefix(sound.count / 2)
            try half.write(to: bundle)
            for _ in 0..<2 {
                let export = try await cli.run(["export", "--sprites", "none", "--out", out.path])
                #expect(export.status == 65, "\(export.stderr)")
                #expect(export.stderr.contains(bundle.path) && export.stderr.contains("--replace-damaged"), "\(export.stderr)")
                #expect(try Data(contentsOf: bundle) == half)
                #expect(try Data(contentsOf: out.appendingPathComponent("index.json")) == index)
            }
            let repair = try await cli.run(["export", "--sprites", "none", "--out", out.path, "--replace-damaged"])
            #expect(repair.status == 0, "\(repair.stderr)")
            #expect(repair.stdout.contains("moved the damaged pokedex-1.tar.gz aside"), "\(repair.stdout)")
            // Written afresh: the same bytes as the first export; the damaged one kept aside.
            #expect(try Data(contentsOf: bundle) == sound)
            let aside = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.contains(".damaged-") }
            try #require(aside.count == 1)
            #expect(aside[0].hasPrefix(".pokedex-1.tar.gz.damaged-"))
            #expect(try Data(contentsOf: out.appendingPathComponent(aside[0])) == half)
            let verify = try await cli.run(["verify", out.path], addMirror: false)
            #expect(verify.status == 0, "\(verify.stderr)")
            // Sound now: a rerun keeps it, with or without the flag.
            #expect(try await cli.run(["export", "--sprites", "none", "--out", out.path, "--replace-damaged"]).stdout.contains("kept"))
        }
    }
}
