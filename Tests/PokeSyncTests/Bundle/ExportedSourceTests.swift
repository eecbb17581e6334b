import Foundation
import PokeSQLite
import Testing
@testable import PokeSyncCore

/// What bundles say a version came from (`source` in the manifest and the device
/// database's meta) is "api-data folder" for a folder source and an HTTP source's base URL
/// without userinfo, query or fragment: no exported byte names the builder's folder or a
/// password. The mirror's own store keeps the source as given.
@Suite("The source as exported", .serialized)
struct ExportedSourceTests {
    @Test func describe() {
        #expect(ExportedSource.describe("http://user:secret@10.0.0.5:8000/api/v2") == "http://10.0.0.5:8000/api/v2")
        #expect(ExportedSource.describe("https://pokeapi.co/api/v2") == "https://pokeapi.co/api/v2")
        #expect(ExportedSource.describe("HTTPS://token@pokeapi.co/api/v2/?key=s3cret#top") == "HTTPS://pokeapi.co/api/v2/")
        #expect(ExportedSource.describe("/tmp/builder/api-data") == "api-data folder")
        #expect(ExportedSource.describe("relative/api-data") == "api-data folder")
        #expect(ExportedSource.describe("http://") == "http source")
    }

    @Test("a folder source: bundles and deltas say 'api-data folder', never the path")
    func folderSource() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("builders-private-folder/api-data")
            try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", source.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)
            // A small upstream fix, so that a delta is written too.
            try FlavorTextWhiteSpaceTests.edit(source, kind: "pokemon", id: 25) { $0["base_experience"] = 113 }
            let sync = try await cli.run(["sync", "--source", source.path, "--sprites", "none"])
            #expect(sync.status == 0 && sync.stdout.contains("published version 2"), "\(sync.stdout) \(sync.stderr)")
            #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)

            let bundles = cli.mirror.appendingPathComponent("bundles")
            let files = try await Self.exportedBytes(bundles)
            #expect(files.keys.contains("pokedex-1-2.delta.tar.gz"), "\(files.keys.sorted())")
            try Self.expectNone(of: [source.path, "builders-private-folder", scratch.lastPathComponent], in: files)
            for name in files.keys where name.hasSuffix(".tar.gz") {
                #expect(try await Self.manifestSource(bundles.appendingPathComponent(name)) == "api-data folder", "\(name)")
            }
            #expect(try await Self.metaSource(bundles, version: 2) == "api-data folder")
            // The store keeps what was given: a run compares it to resume or to take the deploy shortcut.
            let store = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
            #expect(try store.version(2)?.source == source.path)
        }
    }

    @Test("an HTTP source with a password: bundles name the URL without it")
    func httpSourceWithUserinfo() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let base = server.baseURL.absoluteString
                let typed = base.replacingOccurrences(of: "http://", with: "http://mirror-user:hunter2-secret@")
                let full = try await cli.run(["full", "--source", typed, "--sprites", "none"])
                #expect(full.status == 0, "\(full.stderr)")
                #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)
                let bundles = cli.mirror.appendingPathComponent("bundles")
                let files = try await Self.exportedBytes(bundles)
                try Self.expectNone(of: ["hunter2-secret", "mirror-user", scratch.path], in: files)
                #expect(try await Self.manifestSource(bundles.appendingPathComponent("pokedex-1.tar.gz")) == base)
                #expect(try await Self.metaSource(bundles, version: 1) == base)
            }
        }
    }

    /// Every file of a bundles folder, `.tar.gz` ones decompressed (the tar holds the
    /// manifest, the database and the sprites as they are).
    static func exportedBytes(_ bundles: URL) async throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: bundles.path) {
            let file = bundles.appendingPathComponent(name)
            if name.hasSuffix(".gz") {
                let tar = try await runProgram("gzip", ["-dc", file.path])
                #expect(tar.status == 0, "\(name): \(tar.stderr)")
                files[name] = tar.stdout
            } else {
                files[name] = try Data(contentsOf: file)
            }
        }
        #expect(files.keys.contains("index.json") && files.keys.contains("pokedex-1.tar.gz"), "\(files.keys.sorted())")
        return files
    }

    static func expectNone(of needles: [String], in files: [String: Data],
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (name, bytes) in files {
            for needle in needles {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(name) holds \(needle)", sourceLocation: sourceLocation)
            }
        }
    }

    /// The `source` of a bundle's manifest.json, read by tar.
    static func manifestSource(_ bundle: URL) async throws -> String? {
        let manifest = try await runProgram("tar", ["xzf", bundle.path, "-O", "manifest.json"])
        #expect(manifest.status == 0, "\(bundle.lastPathComponent): \(manifest.stderr)")
        let json = try JSONSerialization.jsonObject(with: manifest.stdout) as? [String: Any]
        return json?["source"] as? String
    }

    /// `meta.source` of version N's full bundle's database, extracted by tar.
    static func metaSource(_ bundles: URL, version: Int) async throws -> String? {
        let out = bundles.deletingLastPathComponent().appendingPathComponent("extracted-\(version)")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try await runTool("tar", ["xzf", bundles.appendingPathComponent("pokedex-\(version).tar.gz").path, "-C", out.path])
        let database = try Database(path: out.appendingPathComponent("pokedex.sqlite").path, mode: .readOnly)
        return try database.row("SELECT value FROM meta WHERE key = 'source'", []) { $0.text(0) } ?? nil
    }
}
