import Foundation
import PokeArchive
import Testing
@testable import PokeSyncCore

/// The name aliases of `export --format api-data` (`--base-url`, `--names`) and `--gzip`,
/// on the whole-API sample of 2026-08-08: what ditto's `transform` writes, in upstream's
/// bytes; a shared name as serve answers it; hostile names left out.
@Suite("api-data export: name aliases and gzip")
struct ApiDataAliasTests {
    static let whole2026 = WholeAPITests.whole2026
    static let base = "https://pokeapi.example.org"
    /// Items 723 and 2279 are both roseli-berry (2026-08-08); 2279 is the later in the list.
    static let sharedAlias = "api/v2/item/roseli-berry/index.json"

    /// A `--kinds all` mirror of `source`.
    static func mirror(_ scratch: URL, from source: URL = whole2026) async throws -> PokesyncCLI {
        let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
        let full = try await cli.run(["full", "--source", source.path, "--kinds", "all", "--sprites", "none"])
        try #require(full.status == 0, "\(full.stderr)")
        return cli
    }

    /// `--base-url` writes what ditto's `transform --base-url` writes from the sample: the
    /// same files, each of ours upstream's form of ditto's value; the one shared name aside.
    @Test(.enabled(if: DittoOracle.ditto != nil, DittoOracle.skipMessage))
    func aDeployIsDittosTransform() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(scratch)
            let ours = scratch.appendingPathComponent("ours"), theirs = scratch.appendingPathComponent("theirs")
            let export = try await cli.run(["export", "--format", "api-data", "--out", ours.path, "--base-url", Self.base])
            #expect(export.status == 0, "\(export.stderr)")
            let transform = try await runProgram(DittoOracle.ditto!, ["transform", "--src-dir", Self.whole2026.path,
                                                                "--dest-dir", theirs.path, "--base-url", Self.base])
            try #require(transform.status == 0, "ditto transform: \(transform.stderr)")
            let compare = try await runProgram(DittoOracle.python!, [TestPaths.support.appendingPathComponent("compare_transform.py").path,
                                                              ours.path, theirs.path, "--except", Self.sharedAlias])
            #expect(compare.status == 0, "\(compare.text) \(compare.stderr)")
            // Every document with a name, and the encounters of every pokemon that has them.
            let names = try Self.files(ours).filter { path in
                let parts = path.split(separator: "/")
                return path.hasPrefix("api/") && parts.count >= 5 && Int(parts[3]) == nil && parts[3] != "index.json"
            }
            #expect(names.count == 100, "\(names.count) aliases")
            #expect(export.stdout.contains("100 of them name aliases"), "\(export.stdout)")
        }
    }

    /// A name two documents share gets the document serve answers for it, the same every
    /// time, said in one line; each pokemon's encounters by name; `--names` without a base
    /// URL keeps URLs relative.
    @Test func aSharedNameIsServesDocument() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(scratch)
            let tree = scratch.appendingPathComponent("data")
            for _ in 0..<2 {
                let export = try await cli.run(["export", "--format", "api-data", "--out", tree.path, "--names"])
                #expect(export.status == 0, "\(export.stderr)")
                let lines = export.stderr.split(separator: "\n").filter { $0.contains("roseli-berry") }
                #expect(lines == [#"pokesync: item "roseli-berry" is the name of 723 and 2279: its alias is 2279, the document serve answers for it"#],
                        "\(export.stderr)")
                let alias = try Data(contentsOf: tree.appendingPathComponent(Self.sharedAlias))
                #expect(alias == (try Data(contentsOf: tree.appendingPathComponent("api/v2/item/2279/index.json"))))
            }
            let bulbasaur = try Data(contentsOf: tree.appendingPathComponent("api/v2/pokemon/bulbasaur/index.json"))
            #expect(bulbasaur == (try Data(contentsOf: Self.whole2026.appendingPathComponent("api/v2/pokemon/1/index.json"))))
            // A hard link to the id's file: the same bytes, not a second copy.
            var byName = stat(), byID = stat()
            #expect(stat(tree.appendingPathComponent("api/v2/pokemon/bulbasaur/index.json").path, &byName) == 0)
            #expect(stat(tree.appendingPathComponent("api/v2/pokemon/1/index.json").path, &byID) == 0)
            #expect(byName.st_ino == byID.st_ino && byName.st_nlink == 2)
            // Each pokemon's encounters by name (10196 has some, 10301 an empty list).
            for id in [1, 10196, 10301] {
                let name = try Self.name(tree.appendingPathComponent("api/v2/pokemon/\(id)/index.json"))
                let byName = tree.appendingPathComponent("api/v2/pokemon/\(name)/encounters/index.json")
                let byID = tree.appendingPathComponent("api/v2/pokemon/\(id)/encounters/index.json")
                #expect(try Data(contentsOf: byName) == Data(contentsOf: byID), "\(name)")
            }
            // serve answers the same document for the name.
            let server = try await ServeProcess(mirror: cli.mirror)
            #expect(try server.json("/api/v2/item/roseli-berry/")["id"] as? Int == 2279)
            await server.stop()  // after the answer (a defer cannot await); a throw drops and kills it
        }
    }

    /// A name that is not a plain path segment gets no alias, is reported, and nothing is
    /// written outside the tree; the other aliases are written.
    @Test func hostileNamesAreLeftOut() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.copyItem(at: Self.whole2026, to: source)
            let hostile: [(kind: String, id: Int, name: String)] = [("berry", 1, ".."), ("berry", 2, "a/b"), ("ability", 1, "7"),
                                                                   ("ability", 2, "../../../escaped"), ("stat", 1, ""),
                                                                   ("stat", 2, "index.json")]
            for entry in hostile { try Self.rename(entry.kind, entry.id, to: entry.name, in: source) }
            let cli = try await Self.mirror(scratch, from: source)
            let tree = scratch.appendingPathComponent("out/data")
            let export = try await cli.run(["export", "--format", "api-data", "--out", tree.path, "--base-url", Self.base])
            #expect(export.status == 0, "\(export.stderr)")
            for entry in hostile {
                #expect(export.stderr.contains("pokesync: \(entry.kind)/\(entry.id): no name alias for "), "\(entry): \(export.stderr)")
            }
            // Only the ids and the list in each kind's folder, and nothing beside the tree.
            for kind in ["berry", "ability", "stat"] {
                let entries = try FileManager.default.contentsOfDirectory(atPath: tree.appendingPathComponent("api/v2/\(kind)").path)
                #expect(Set(entries) == ["1", "2", "index.json"], "\(kind): \(entries)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.appendingPathComponent("out").path) == ["data"])
            #expect(try Set(FileManager.default.contentsOfDirectory(atPath: scratch.path)) == ["source", "Mirror", "out"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: tree.path).sorted() == [".pokesync-export", "api", "schema"])
            #expect(FileManager.default.fileExists(atPath: tree.appendingPathComponent("api/v2/pokemon/bulbasaur/index.json").path))
        }
    }

    /// Which names `ApiDataAliases` refuses, and why.
    @Test func whatIsAPlainSegment() {
        for name in ["", ".", "..", "a/b", "/", "a\u{0}b", "7", "-1", "+7", "007", "index.json", "INDEX.JSON",
                     String(repeating: "a", count: 256)] {
            #expect(ApiDataAliases.problem(with: name) != nil, "\(name)")
        }
        for name in ["pikachu", "mr-mime", "a.b", "...", "7a", "porygon-z", "flabébé", String(repeating: "a", count: 255)] {
            #expect(ApiDataAliases.problem(with: name) == nil, "\(name)")
        }
    }

    /// The plan on its own: a name matched case-insensitively goes to the later document
    /// in the list's order (positions, not ids), a pokemon's encounters follow its name,
    /// documents without a name and kinds without a list get none.
    @Test func theAliasPlan() throws {
        let hash = try #require(SHA256Digest(bytes: [UInt8](repeating: 7, count: 32)))
        func document(_ kind: ResourceKind, _ id: Int, _ name: String?, _ position: Int?) -> VersionDocument {
            VersionDocument(kind: kind, id: id, name: name, hash: hash, position: position)
        }
        let plan = ApiDataAliases(documents: [
            document(.init(rawValue: "item"), 9, "Berry", 0), document(.init(rawValue: "item"), 3, "berry", 1),
            document(.init(rawValue: "item"), 4, "other", 2), document(.evolutionChain, 1, nil, 0),
            document(.pokemon, 25, "pikachu", 0), document(.pokemonEncounters, 25, nil, nil), document(.pokemon, 26, "raichu", 1),
            document(.meta, 0, nil, nil),
        ])
        #expect(plan.paths == [
            "item/3/index.json": ["item/berry/index.json"], "item/4/index.json": ["item/other/index.json"],
            "pokemon/25/index.json": ["pokemon/pikachu/index.json"],
            "pokemon/25/encounters/index.json": ["pokemon/pikachu/encounters/index.json"],
            "pokemon/26/index.json": ["pokemon/raichu/index.json"],
        ])
        #expect(plan.notes == [#"item "berry" is the name of 9 and 3: its alias is 3, the document serve answers for it"#])
        #expect(plan.count == 5)
    }

    /// `--gzip`: each file's `.gz` beside it, its content the file's, with no name or time in
    /// the header, the same bytes on every export; which options go together.
    @Test func gzipIsDeterministicAndOptionsAreChecked() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(scratch)
            var trees: [[String: Data]] = []
            for name in ["one", "two"] {
                let tree = scratch.appendingPathComponent(name)
                let export = try await cli.run(["export", "--format", "api-data", "--out", tree.path, "--base-url", Self.base, "--gzip"])
                #expect(export.status == 0, "\(export.stderr)")
                trees.append(try WholeAPITests.files(tree))
            }
            #expect(trees[0] == trees[1])
            let plain = trees[0].filter { !$0.key.hasSuffix(".gz") && $0.key != ApiDataExporter.markerName }
            #expect(trees[0].count == 2 * plain.count + 1)
            for (path, bytes) in plain {
                let packed = try #require(trees[0][path + ".gz"], "\(path).gz")
                // ID1 ID2 CM=8, FLG=0 (no name, comment or extra), MTIME=0, XFL, OS=255.
                #expect(Array(packed.prefix(4)) == [0x1f, 0x8b, 8, 0] && Array(packed[4..<8]) == [0, 0, 0, 0] && packed[9] == 255, "\(path)")
                #expect(Data(try Zlib.decompress(packed, format: .gzip)) == bytes, "\(path)")
            }

            let tree = scratch.appendingPathComponent("options")
            for (arguments, status) in [(["--names", "--no-names"], Int32(64)), (["--base-url", Self.base, "--no-names"], 0)] {
                let result = try await cli.run(["export", "--format", "api-data", "--out", tree.path] + arguments)
                #expect(result.status == status, "\(arguments): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: tree.appendingPathComponent("api/v2/pokemon/bulbasaur").path))
            for flag in ["--names", "--no-names", "--gzip"] {
                let bundle = try await cli.run(["export", flag])
                #expect(bundle.status == 64 && bundle.stderr.contains("\(flag) goes with --format api-data"), "\(bundle.stderr)")
            }
        }
    }

    /// Relative paths of every regular file below `root`.
    static func files(_ root: URL) throws -> [String] {
        Array(try WholeAPITests.files(root).keys)
    }

    /// A document's `name`.
    static func name(_ file: URL) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        return try #require(object["name"] as? String)
    }

    /// Renames document `kind/id` of an api-data folder, in its list and in the document.
    static func rename(_ kind: String, _ id: Int, to name: String, in source: URL) throws {
        let api = source.appendingPathComponent("api/v2/\(kind)")
        let documentFile = api.appendingPathComponent("\(id)/index.json")
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: documentFile)) as? [String: Any])
        document["name"] = name
        try WholeAPITests.pythonDump(document, to: documentFile)
        let listFile = api.appendingPathComponent("index.json")
        var list = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: listFile)) as? [String: Any])
        list["results"] = try #require(list["results"] as? [[String: Any]]).map { entry in
            var entry = entry
            if entry["url"] as? String == "/api/v2/\(kind)/\(id)/" { entry["name"] = name }
            return entry
        }
        try WholeAPITests.pythonDump(list, to: listFile)
    }
}
