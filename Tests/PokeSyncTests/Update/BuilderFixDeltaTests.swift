import Foundation
import PokeSQLite
import PokedexReader
import Testing
@testable import PokeSyncCore

/// The flavor-text trim changes rows of versions already on devices, and "a device
/// gets the fix as an ordinary delta". A delta is made against the base devices hold: the
/// published full bundle when it differs from what this build makes of that version.
@Suite("A builder fix reaches devices as a delta", .serialized)
struct BuilderFixDeltaTests {
    @Test("a device holding an untrimmed text gets it trimmed by delta; verify applies the delta to the published base")
    func untrimmedTextIsFixedByDelta() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("api-data")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
            try FlavorTextWhiteSpaceTests.edit(source, kind: "pokemon-species", id: 25) { species in
                var entries = species["flavor_text_entries"] as! [[String: Any]]
                let index = try #require(entries.firstIndex {
                    FlavorTextWhiteSpaceTests.name($0["language"]) == "ja" && FlavorTextWhiteSpaceTests.name($0["version"]) == "ultra-moon"
                })
                entries[index]["flavor_text"] = FlavorTextWhiteSpaceTests.larvesta
                species["flavor_text_entries"] = entries
            }
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let bundles = cli.mirror.appendingPathComponent("bundles")
            let device = scratch.appendingPathComponent("device")
            #expect(try await cli.run(["full", "--source", source.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)
            // What an export before the fix published, and a device installed.
            try await Self.republishUntrimmed(version: 1, in: bundles, scratch: scratch)
            let first = try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false)
            #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
            #expect(try Self.text(on: device) == FlavorTextWhiteSpaceTests.larvestaCleaned + "\u{3000}")

            try FlavorTextWhiteSpaceTests.edit(source, kind: "pokemon", id: 25) { $0["base_experience"] = 113 }
            #expect(try await cli.run(["sync", "--source", source.path, "--sprites", "none"]).status == 0)
            let export = try await cli.run(["export", "--sprites", "none"])
            #expect(export.status == 0 && export.stdout.contains("pokedex-1-2.delta.tar.gz"), "\(export.stdout) \(export.stderr)")
            let verify = try await cli.run(["verify", bundles.path], addMirror: false)
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
            let update = try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false)
            #expect(update.status == 0 && update.stdout.contains("installed version 2 (delta from 1"), "\(update.stdout) \(update.stderr)")
            #expect(try Self.text(on: device) == FlavorTextWhiteSpaceTests.larvestaCleaned)
        }
    }

    /// Species 25's Japanese ultra-moon text on an installed device.
    static func text(on device: URL) throws -> String? {
        let database = try Database(path: device.appendingPathComponent("current/pokedex.sqlite").path, mode: .readOnly)
        return try database.row("SELECT text FROM species_flavor_text WHERE species_id = 25 AND language = 'ja' AND version = 'ultra-moon'",
                                []) { $0.text(0) } ?? nil
    }

    /// Replaces version N's full bundle (the only file the index names) with one whose
    /// database keeps species 25's ja text with its U+3000 at the end, as the builder did
    /// before the fix: digest, manifest and index made again by the exporter's own parts.
    static func republishUntrimmed(version: Int, in bundles: URL, scratch: URL) async throws {
        let folder = BundlesFolder(root: bundles)
        let name = BundlesFolder.fullName(version: version)
        let old = try BundleArchive.readManifest(folder.url(name))
        let extract = scratch.appendingPathComponent("untrimmed")
        try FileManager.default.createDirectory(at: extract, withIntermediateDirectories: true)
        try await runTool("tar", ["xzf", folder.url(name).path, "-C", extract.path])
        let file = extract.appendingPathComponent("pokedex.sqlite")
        do {
            let database = try Database(path: file.path)
            let key = "species_id = 25 AND language = 'ja' AND version = 'ultra-moon'"
            let index = try #require(try database.row("SELECT entry_index FROM species_flavor_text WHERE \(key)", []) { $0.int(0) } ?? nil)
            // Through the schema's own DELETE and INSERT (a view with triggers, or a table).
            try database.execute("DELETE FROM species_flavor_text WHERE \(key)")
            try database.run("INSERT INTO species_flavor_text (species_id, language, version, entry_index, text) VALUES (25, 'ja', 'ultra-moon', ?, ?)",
                             [.integer(Int64(index)), .text(FlavorTextWhiteSpaceTests.larvestaCleaned + "\u{3000}")])
            let digest = try ContentDigest.compute(database).hex
            try database.run("UPDATE meta SET value = ? WHERE key = 'content_digest'", [.text(digest)])
        }
        try FileManager.default.removeItem(at: folder.url(name))
        let published = try #require(try BundleArchive.publish(entries: [BundleArchive.Entry(path: "pokedex.sqlite", file: file)],
                                                               in: folder, as: name) { files, unpackedSize in
            let digest = try ContentDigest.compute(try Database(path: file.path, mode: .immutable)).hex
            return BundleManifest(format: BundleManifest.fullFormat, lineage: old.lineage, version: version,
                                  createdAt: old.createdAt, source: old.source, profile: old.profile,
                                  contentDigest: digest, unpackedSize: unpackedSize, files: files)
        })
        try folder.writeIndex(BundleIndex(lineage: old.lineage, profile: old.profile,
                                          full: BundleIndex.Entry(to: version, file: name, size: published.size,
                                                                  unpackedSize: published.unpackedSize, sha256: published.sha256),
                                          deltas: []))
    }
}
