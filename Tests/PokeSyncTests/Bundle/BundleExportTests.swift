import Foundation
import Testing
@testable import PokeSyncCore
import PokedexReader

/// `pokesync export` end to end: the bundle a device downloads, checked with the real
/// `gzip`, `tar`, `sqlite3`, Python's `tarfile`, and values read straight from the sample.
@Suite("Bundle export, end to end", .serialized)
struct BundleExportTests {
    /// A mirror of the 2026 sample with default sprites, over the stand-in.
    static func withMirror(_ body: (PokesyncCLI, URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString,
                                        "--sprite-source", server.spriteBaseURL.absoluteString, "--sprites", "default"])
                #expect(full.status == 0, "\(full.stderr)")
                try await body(cli, scratch)
            }
        }
    }

    static func sampleJSON(_ kind: String, _ id: Int) throws -> [String: Any] {
        let data = try Data(contentsOf: TestPaths.document(in: TestPaths.sample2026, kind: kind, id: id))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theFullBundleIsWhatRealToolsRead() async throws {
        try await Self.withMirror { cli, scratch in
            let export = try await cli.run(["export"])
            #expect(export.status == 0, "\(export.stderr)")
            let bundles = cli.mirror.appendingPathComponent("bundles")
            let bundle = bundles.appendingPathComponent("pokedex-1.tar.gz")
            try await runTool("gzip", ["-t", bundle.path])
            let names = try await runTool("tar", ["tzf", bundle.path]).split(separator: "\n").map(String.init)
            #expect(names.first == "manifest.json" && names.contains("pokedex.sqlite") && names.contains("sprites/pokemon/25.png"))
            #expect(names == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            // Fixed metadata, regular files only, as Python's tarfile sees them.
            let metadata = try await runTool("python3", ["-c", """
                import sys, tarfile
                with tarfile.open(sys.argv[1]) as t:
                    print(set((m.type == tarfile.REGTYPE, m.uid, m.gid, m.uname, m.gname, m.mtime, m.mode) for m in t))
                """, bundle.path])
            #expect(metadata == "{(True, 0, 0, '', '', 0, 420)}")

            let unpacked = scratch.appendingPathComponent("unpacked")
            try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
            try await runTool("tar", ["xzf", bundle.path, "-C", unpacked.path])
            let database = unpacked.appendingPathComponent("pokedex.sqlite").path
            #expect(try await runTool("sqlite3", [database, "PRAGMA integrity_check"]) == "ok")
            #expect(try await runTool("sqlite3", [database, "PRAGMA journal_mode"]) == "delete")

            // Pikachu's types and stats, as the sample document has them.
            let pikachu = try Self.sampleJSON("pokemon", 25)
            let types = (pikachu["types"] as! [[String: Any]]).map { ($0["type"] as! [String: Any])["name"] as! String }
            #expect(try await runTool("sqlite3", [database, "SELECT group_concat(type, ',') FROM (SELECT type FROM pokemon_type WHERE pokemon_id = 25 ORDER BY slot)"])
                    == types.joined(separator: ","))
            for stat in pikachu["stats"] as! [[String: Any]] {
                let name = (stat["stat"] as! [String: Any])["name"] as! String
                #expect(try await runTool("sqlite3", [database, "SELECT base_stat FROM pokemon_stat WHERE pokemon_id = 25 AND stat = '\(name)'"])
                        == String(stat["base_stat"] as! Int))
            }
            // The thumbnail path names a file that is in the bundle.
            let thumbnail = try await runTool("sqlite3", [database, "SELECT path FROM pokemon_sprite WHERE pokemon_id = 25 AND key = 'front_default'"])
            #expect(thumbnail == "sprites/pokemon/25.png")
            #expect(FileManager.default.fileExists(atPath: unpacked.appendingPathComponent(thumbnail).path))

            // The manifest: every file's size and SHA-256, and content_digest recomputed in Python.
            let manifest = try JSONDecoder().decode(BundleManifest.self, from: Data(contentsOf: unpacked.appendingPathComponent("manifest.json")))
            #expect(manifest.format == "pokesync-bundle" && manifest.version == 1 && manifest.profile.sprites == "default")
            for file in manifest.files {
                let digest = try await runTool("sha256sum", [unpacked.appendingPathComponent(file.path).path]).prefix(64)
                #expect(String(digest) == file.sha256, "\(file.path)")
            }
            #expect(try await runPython("content_digest.py", [database]) == manifest.contentDigest)
            let index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: bundles.appendingPathComponent("index.json")))
            #expect(index.latest == 1 && index.full.file == "pokedex-1.tar.gz" && index.lineage == manifest.lineage)
            #expect(index.full.unpackedSize == manifest.unpackedSize)

            let verify = try await cli.run(["verify", bundles.path], addMirror: false)
            #expect(verify.status == 0, "\(verify.stderr)")
        }
    }

    @Test func twoExportsAreByteIdenticalAndAFlippedByteFailsVerify() async throws {
        try await Self.withMirror { cli, scratch in
            let first = scratch.appendingPathComponent("first"), second = scratch.appendingPathComponent("second")
            #expect(try await cli.run(["export", "--out", first.path]).status == 0)
            #expect(try await cli.run(["export", "--out", second.path]).status == 0)
            let name = "pokedex-1.tar.gz"
            #expect(try await runProgram("cmp", [first.appendingPathComponent(name).path, second.appendingPathComponent(name).path]).status == 0)

            let original = try Data(contentsOf: first.appendingPathComponent(name))
            // count - 8 is the gzip trailer's CRC-32: near the end, and never a no-op (a flip
            // just before it can land in the last deflate block's unused padding bits).
            for offset in [10, original.count / 3, original.count / 2, original.count - 8] {
                var damaged = original
                damaged[offset] ^= 0x40
                let file = scratch.appendingPathComponent("damaged-\(offset).tar.gz")
                try damaged.write(to: file)
                let verify = try await cli.run(["verify", file.path], addMirror: false)
                #expect(verify.status == 65, "offset \(offset): \(verify.stdout) \(verify.stderr)")
                #expect(verify.stderr.contains(file.lastPathComponent))
            }
        }
    }

    @Test func languagesKeepOnlyThoseAndUnknownOnesAreNamed() async throws {
        try await Self.withMirror { cli, scratch in
            let out = scratch.appendingPathComponent("ko")
            #expect(try await cli.run(["export", "--languages", "EN,ko", "--out", out.path]).status == 0)
            try await runTool("tar", ["xzf", out.appendingPathComponent("pokedex-1.tar.gz").path, "-C", out.path, "pokedex.sqlite"])
            let database = out.appendingPathComponent("pokedex.sqlite").path
            for table in ["species_name", "species_flavor_text", "pokedex_description"] {
                let codes = try await runTool("sqlite3", [database, "SELECT DISTINCT language FROM \(table) ORDER BY 1"])
                #expect(Set(codes.split(separator: "\n")).isSubset(of: ["en", "ko"]), "\(table): \(codes)")
            }
            #expect(try await runTool("sqlite3", [database, "SELECT value FROM meta WHERE key = 'profile'"])
                    == #"{"languages":["en","ko"],"sprites":"default"}"#)
            let unknown = try await cli.run(["export", "--languages", "en,xx", "--out", scratch.appendingPathComponent("xx").path])
            #expect(unknown.status == 64 && unknown.stderr.contains("xx") && unknown.stderr.contains("ko"), "\(unknown.stderr)")
        }
    }

    @Test func badRequestsLeaveNothingHalfWritten() async throws {
        try await Self.withMirror { cli, scratch in
            let out = scratch.appendingPathComponent("out")
            let unknownVersion = try await cli.run(["export", "--version", "7", "--out", out.path])
            #expect(unknownVersion.status == 64 && unknownVersion.stderr.contains("version 7"))
            let unheld = try await cli.run(["export", "--sprites", "all", "--out", out.path])
            #expect(unheld.status == 64 && unheld.stderr.contains("was mirrored with --sprites default, which does not select"), "\(unheld.stderr)")
            let file = scratch.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            #expect(try await cli.run(["export", "--out", file.path]).status == 64)
            let readOnly = scratch.appendingPathComponent("read-only")
            try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
            chmod(readOnly.path, 0o555)
            defer { chmod(readOnly.path, 0o755) }
            if getuid() != 0 { #expect(try await cli.run(["export", "--out", readOnly.path]).status == 74) }
            // A folder whose pokedex-1.tar.gz has another profile is not silently reused.
            #expect(try await cli.run(["export", "--out", out.path]).status == 0)
            let before = try Data(contentsOf: out.appendingPathComponent("pokedex-1.tar.gz"))
            let otherProfile = try await cli.run(["export", "--sprites", "none", "--out", out.path])
            #expect(otherProfile.status == 64 && otherProfile.stderr.contains("profile"), "\(otherProfile.stderr)")
            #expect(try Data(contentsOf: out.appendingPathComponent("pokedex-1.tar.gz")) == before)
            let left = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
            #expect(left.allSatisfy { !$0.contains(".partial") }, "\(left)")
        }
    }
}
