import Foundation
import PokeSQLite
import Testing
@testable import PokeSyncCore

/// The whole API (`--kinds all`), end to end, on the two whole-API samples
/// (Tests/Fixtures/whole-*: a few documents of every endpoint in upstream's exact bytes,
/// encounters, meta, the root, and the schemas `ditto analyze` infers over the sample).
@Suite("The whole API, end to end")
struct WholeAPITests {
    static let whole2025 = TestPaths.fixtures.appendingPathComponent("whole-2025-12-02", isDirectory: true)
    static let whole2026 = TestPaths.fixtures.appendingPathComponent("whole-2026-08-08", isDirectory: true)

    /// `full --kinds all` from a folder, then `export --format api-data`: the tree is the
    /// sample's, byte for byte (documents, lists in the source's order, encounters, meta,
    /// the root, the schemas), and nothing else.
    @Test func exportOfAWholeMirrorIsUpstreamsBytes() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", Self.whole2026.path, "--kinds", "all", "--sprites", "none"])
            #expect(full.status == 0, "\(full.stderr)")
            let tree = scratch.appendingPathComponent("data")
            let export = try await cli.run(["export", "--format", "api-data", "--out", tree.path])
            #expect(export.status == 0, "\(export.stderr)")
            try Self.expectSameTree(Self.whole2026, tree)
        }
    }

    /// A sync from the older sample to the newer: the kind upstream added (`currency`)
    /// and `meta` come without any change of options, the diff names them, and the
    /// export equals the newer sample byte for byte.
    @Test func aNewEndpointIsMirroredOnTheNextSync() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", Self.whole2025.path, "--kinds", "all", "--sprites", "none"])
            #expect(full.status == 0, "\(full.stderr)")
            let old = scratch.appendingPathComponent("old")
            #expect(try await cli.run(["export", "--format", "api-data", "--out", old.path]).status == 0)
            try Self.expectSameTree(Self.whole2025, old)

            let sync = try await cli.run(["sync", "--source", Self.whole2026.path, "--kinds", "all", "--sprites", "none"])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stdout.contains("published version 2"), "\(sync.stdout)")
            #expect(sync.stderr.contains("added currency"), "\(sync.stderr)")
            let diff = try await cli.run(["diff", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
            let summary = try #require(object["summary"] as? [String: [String: Int]])
            #expect(summary["currency"]?["added"] == 2)
            #expect(summary["meta"]?["added"] == 1)
            #expect(summary["pokemon"]?["added"] == 1)
            #expect(summary["pokemon-encounters"]?["added"] == 1)
            #expect(summary["machine"] != nil)
            let text = try await cli.run(["diff"])
            #expect(text.stdout.contains("currency"), "\(text.stdout)")

            let new = scratch.appendingPathComponent("new")
            #expect(try await cli.run(["export", "--format", "api-data", "--out", new.path]).status == 0)
            try Self.expectSameTree(Self.whole2026, new)

            // A sync that names no kinds keeps the set the latest version was made with: the
            // nightly job never narrows a whole mirror by omission.
            let plain = try await cli.run(["sync", "--source", Self.whole2026.path, "--sprites", "none"])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stdout.contains("no changes since version 2"), "\(plain.stdout)")
            #expect(!plain.stderr.contains("no longer mirrored"), "\(plain.stderr)")

            // Nothing changed since: no version, and every stage still agrees.
            let again = try await cli.run(["sync", "--source", Self.whole2026.path, "--kinds", "all", "--sprites", "none"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("no changes since version 2"), "\(again.stdout)")
            #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)
            let status = try await cli.run(["status"])
            #expect(status.stdout.contains("2 currency"), "\(status.stdout)")
            #expect(try await cli.run(["prune", "--keep", "1"]).status == 0)
            let pruned = scratch.appendingPathComponent("pruned")
            #expect(try await cli.run(["export", "--format", "api-data", "--out", pruned.path]).status == 0)
            try Self.expectSameTree(Self.whole2026, pruned)
        }
    }

    /// The same over HTTP, from the stand-in serving the sample as pokeapi.co does
    /// (absolute URLs, gzip, the encounters route without its slash, `/api/v2/meta/`).
    @Test func theWholeAPIOverHTTP() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: Self.whole2026) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString, "--kinds", "all",
                                        "--sprites", "none"])
                #expect(full.status == 0, "\(full.stderr)")
                let tree = scratch.appendingPathComponent("data")
                #expect(try await cli.run(["export", "--format", "api-data", "--out", tree.path]).status == 0)
                try Self.expectSameTree(Self.whole2026, tree)
                // The no-change sync: the root and the lists, nothing else.
                try await server.resetStats()
                let sync = try await cli.run(["sync", "--source", server.baseURL.absoluteString, "--kinds", "all",
                                        "--sprites", "none"])
                #expect(sync.status == 0, "\(sync.stderr)")
                #expect(sync.stdout.contains("no changes since version 1"), "\(sync.stdout)")
                let stats = try await server.stats()
                let endpoints = try Self.endpoints(Self.whole2026)
                #expect(stats.requests == endpoints.count, "\(stats.requests) requests for \(endpoints.count) endpoints")
            }
        }
    }

    /// `full --kinds all` killed part way through the documents resumes: the same command
    /// fetches only what was not done, and the export is the sample's, byte for byte.
    @Test func aKilledWholeRunResumes() async throws {
        try await withTemporaryDirectory { scratch in
            let options = StandInOptions(root: Self.whole2026)
            try await withStandInServer(options) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let arguments = ["full", "--source", server.baseURL.absoluteString, "--kinds", "all", "--sprites", "none",
                                 "--concurrency", "1"]
                // Five requests a second (the run's own --rate, whatever the machine's load):
                // 160 requests take 32 s. The kill comes from a thread of its own 12 s in, among
                // the documents, so a test scheduler busy with other tests cannot delay it.
                let child = cli.start(arguments + ["--rate", "5"])
                try child.process.run()
                let pid = child.process.processIdentifier
                Thread.detachNewThread {
                    Thread.sleep(forTimeInterval: 12)
                    kill(pid, SIGKILL)
                }
                await child.waitUntilExit()
                #expect(child.process.terminationReason == .uncaughtSignal, "\(child.result().stderr)")
                // The same command (a higher --concurrency only makes the rest quicker).
                let resumed = try await cli.run(arguments.dropLast() + ["8"])
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(resumed.stderr.contains("resuming the full run"), "\(resumed.stderr)")
                let tree = scratch.appendingPathComponent("data")
                #expect(try await cli.run(["export", "--format", "api-data", "--out", tree.path]).status == 0)
                try Self.expectSameTree(Self.whole2026, tree)
                // No document fetched twice beyond those in flight at the kill.
                let stats = try await server.stats()
                let twice = stats.byPath.filter { !$0.key.hasSuffix("/api/v2/") && $0.value > 1 && Self.isDocumentPath($0.key) }
                #expect(twice.count <= 1, "fetched again: \(twice)")
            }
        }
    }

    /// `--base-url` writes every `/api/v2/` (and schema `$ref`) URL on that base, as
    /// ditto's transform does, and with `--no-names` (no name aliases, ApiDataAliasTests)
    /// nothing else changes; again, the export replaces its own.
    @Test func baseURLWritesAbsoluteURLs() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", Self.whole2026.path, "--kinds", "all", "--sprites", "none"]).status == 0)
            let tree = scratch.appendingPathComponent("data")
            let base = "https://mirror.example/poke"
            for _ in 0..<2 {
                let export = try await cli.run(["export", "--format", "api-data", "--out", tree.path, "--base-url", base + "/",
                                          "--no-names"])
                #expect(export.status == 0, "\(export.stderr)")
            }
            for part in ["api", "schema"] {
                let want = try Self.files(Self.whole2026.appendingPathComponent(part))
                let got = try Self.files(tree.appendingPathComponent(part))
                #expect(Set(want.keys) == Set(got.keys))
                let differing = want.filter { path, bytes in
                    let expected = String(decoding: bytes, as: UTF8.self)
                        .replacingOccurrences(of: "\"/api/v2/", with: "\"\(base)/api/v2/")
                        .replacingOccurrences(of: "\"/schema/v2/", with: "\"\(base)/schema/v2/")
                    return got[path] != Data(expected.utf8)
                }.keys.sorted()
                let count = differing.count
                #expect(count == 0, "\(part): e.g. \(differing.prefix(3))")
            }
            let bad = try await cli.run(["export", "--format", "api-data", "--out", tree.path, "--base-url", "ftp://x"])
            #expect(bad.status == 64, "\(bad.stderr)")
            let bundle = try await cli.run(["export", "--base-url", base])
            #expect(bundle.status == 64, "\(bundle.stderr)")
        }
    }

    static func isDocumentPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        return parts.count >= 4 && (Int(parts[3]) != nil || parts[2] == "meta")
    }

    /// A comma list mirrors those kinds only; narrowing the set on an existing mirror is
    /// deliberate (--allow-shrink, else exit 64), and then a version that removes the
    /// others' documents (listed by the diff), not a shrink.
    @Test func changingTheSetIsADiffedChange() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", Self.whole2026.path, "--kinds", "item,machine,meta",
                                    "--sprites", "none"])
            #expect(full.status == 0, "\(full.stderr)")
            #expect(full.stdout.contains("published version 1: 7 documents"), "\(full.stdout)")
            let refused = try await cli.run(["sync", "--source", Self.whole2026.path, "--kinds", "machine", "--sprites", "none"])
            #expect(refused.status == 64 && refused.stderr.contains("kinds item,machine,meta -> machine"), "\(refused.stderr)")
            let narrow = try await cli.run(["sync", "--source", Self.whole2026.path, "--kinds", "machine", "--sprites", "none",
                                      "--allow-shrink"])
            #expect(narrow.status == 0, "\(narrow.stderr)")
            #expect(narrow.stderr.contains("no longer mirrored item, meta"), "\(narrow.stderr)")
            let diff = try await cli.run(["diff", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
            let summary = try #require(object["summary"] as? [String: [String: Int]])
            #expect(summary["item"]?["removed"] == 4)
            #expect(summary["meta"]?["removed"] == 1)
            #expect(summary["machine"] == ["added": 0, "removed": 0, "changed": 0])

            let bad = try await cli.run(["sync", "--source", Self.whole2026.path, "--kinds", "Machine"])
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("--kinds takes default, all, or a comma list"), "\(bad.stderr)")
            // A name the source's root does not list is a usage error naming it, not a failed list.
            let typo = try await cli.run(["sync", "--source", Self.whole2026.path, "--kinds", "machine,pokemn"])
            #expect(typo.status == 64, "\(typo.stderr)")
            #expect(typo.stderr.contains("--kinds: the source lists no pokemn"), "\(typo.stderr)")
        }
    }

    /// A root that names something other than an endpoint (a path, an upper-case name) is
    /// refused before anything is listed or written; a source with no root cannot do `all`.
    @Test func aHostileOrMissingRootIsRefused() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("api-data")
            try FileManager.default.copyItem(at: Self.whole2026, to: source)
            let root = source.appendingPathComponent("api/v2/index.json")
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            for hostile in [#"{"../../etc": "/api/v2/x/"}"#, #"{"Pokemon": "/api/v2/Pokemon/"}"#, #"["pokemon"]"#,
                            #"{"pokemon": 5}"#, "{}"] {
                try Data(hostile.utf8).write(to: root)
                let result = try await cli.run(["full", "--source", source.path, "--kinds", "all", "--sprites", "none"])
                #expect(result.status == 65, "\(hostile): \(result.stderr)")
                #expect(result.stderr.contains(root.path), "\(hostile): \(result.stderr)")
            }
            try FileManager.default.removeItem(at: root)
            let missing = try await cli.run(["full", "--source", source.path, "--kinds", "all", "--sprites", "none"])
            #expect(missing.status == 69, "\(missing.stderr)")
            #expect(missing.stderr.contains("cannot read the root index"), "\(missing.stderr)")
            // The default kinds need no root.
            let ten = try await cli.run(["full", "--source", source.path, "--sprites", "none"])
            #expect(ten.status == 0, "\(ten.stderr)")
            // A document of the wrong shape (encounters that are not an array) is refused,
            // named, and nothing is published.
            try FileManager.default.copyItem(at: Self.whole2026.appendingPathComponent("api/v2/index.json"), to: root)
            let encounters = source.appendingPathComponent("api/v2/pokemon/10196/encounters/index.json")
            try Data(#"{"not": "an array"}"#.utf8).write(to: encounters)
            let shape = try await cli.run(["full", "--source", source.path, "--kinds", "all", "--sprites", "none"])
            #expect(shape.status == 1, "\(shape.stderr)")
            #expect(shape.stderr.contains("pokemon-encounters/10196") && shape.stderr.contains("not a JSON array"), "\(shape.stderr)")
            let mixed = try await cli.run(["full", "--source", source.path, "--kinds", "all,pokemon"])
            #expect(mixed.status == 64, "\(mixed.stderr)")
        }
    }

    /// An endpoint whose list is empty (one upstream has just added) is mirrored as such:
    /// the export's root names it and its list says `count` 0, as upstream's would.
    @Test func anEmptyEndpointIsKept() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("api-data")
            try FileManager.default.copyItem(at: Self.whole2026.appendingPathComponent("api"),
                                             to: source.appendingPathComponent("api"))
            let api = source.appendingPathComponent("api/v2")
            var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: api.appendingPathComponent("index.json"))) as? [String: String])
            root["brand-new"] = "/api/v2/brand-new/"
            try Self.pythonDump(root, to: api.appendingPathComponent("index.json"))
            try FileManager.default.createDirectory(at: api.appendingPathComponent("brand-new"), withIntermediateDirectories: true)
            try Self.pythonDump(["count": 0, "next": NSNull(), "previous": NSNull(), "results": [Any]()],
                                to: api.appendingPathComponent("brand-new/index.json"))
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", source.path, "--kinds", "all", "--sprites", "none"])
            #expect(full.status == 0, "\(full.stderr)")
            let tree = scratch.appendingPathComponent("data")
            #expect(try await cli.run(["export", "--format", "api-data", "--out", tree.path]).status == 0)
            try Self.expectSameTree(source, tree)
            let again = try await cli.run(["sync", "--source", source.path, "--sprites", "none"])
            #expect(again.stdout.contains("no changes since version 1"), "\(again.stdout)")
            #expect(!again.stderr.contains("kinds since"), "\(again.stderr)")
        }
    }

    /// A store made before kinds were data (no positions, no recorded kinds), read by
    /// commands that open it read-only and never migrate it: status, versions, export.
    @Test func aStoreFromBeforeKindsIsReadAsItIs() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            let old = try Database(path: cli.mirror.appendingPathComponent("store.sqlite").path)
            for statement in ["ALTER TABLE runs DROP COLUMN kinds", "ALTER TABLE runs DROP COLUMN resolved_kinds",
                              "ALTER TABLE frontier DROP COLUMN position", "ALTER TABLE version_documents DROP COLUMN position",
                              "DROP TABLE version_kinds"] {
                try old.execute(statement)
            }
            for arguments in [["status"], ["versions"]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
            }
            let tree = scratch.appendingPathComponent("data")
            let export = try await cli.run(["export", "--format", "api-data", "--out", tree.path])
            #expect(export.status == 0, "\(export.stderr)")
            try Samples.expectSameJSON(TestPaths.sample2026, tree)
            // The next run migrates it and goes on with the default kinds.
            let sync = try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(sync.status == 0, "\(sync.stderr)")
        }
    }

    /// Writes `value` as upstream writes api-data (Python's json.dumps(indent=4, sort_keys=True)).
    static func pythonDump(_ value: Any, to file: URL) throws {
        let compact = try JSONSerialization.data(withJSONObject: value)
        try Data(try ApiDataJSON.render([UInt8](compact))).write(to: file)
    }

    /// The endpoints a sample's root lists.
    static func endpoints(_ sample: URL) throws -> [String] {
        let data = try Data(contentsOf: sample.appendingPathComponent("api/v2/index.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]).keys.sorted()
    }

    /// Every file of `expected` (its `api/` and, when there, `schema/`) is in `actual` with
    /// the same bytes, and `actual` holds no other file there.
    static func expectSameTree(_ expected: URL, _ actual: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for part in ["api", "schema"] {
            let want = try files(expected.appendingPathComponent(part))
            guard !want.isEmpty else { continue }
            let got = try files(actual.appendingPathComponent(part))
            let missing = Set(want.keys).subtracting(got.keys).sorted(), extra = Set(got.keys).subtracting(want.keys).sorted()
            #expect(missing.isEmpty && extra.isEmpty,
                    "\(part): \(missing.count) missing, e.g. \(missing.prefix(3)); \(extra.count) extra, e.g. \(extra.prefix(3))",
                    sourceLocation: sourceLocation)
            let differing = want.keys.filter { key in got[key].map { $0 != want[key] } ?? false }.sorted()
            let count = differing.count
            #expect(count == 0, "\(part): \(differing.count) files differ, e.g. \(differing.prefix(5))",
                    sourceLocation: sourceLocation)
        }
    }

    /// Relative path to bytes, for every regular file below `root`.
    static func files(_ root: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [:] }
        while let path = walker.nextObject() as? String {
            let url = root.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[path] = try Data(contentsOf: url)
            }
        }
        return result
    }
}
