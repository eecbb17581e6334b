import Foundation
import Testing

/// Real clients against `serve`: pokesync itself, ditto's `clone`, curl following `next`.
@Suite("serve: real clients", .serialized)
struct ServeClientsTests {
    /// Every `.json` of an api-data tree below `api/v2/`, parsed: relative path → JSON.
    static func tree(_ root: URL, kinds: Set<String>) throws -> [String: NSObject] {
        var files: [String: NSObject] = [:]
        let api = root.appendingPathComponent("api/v2")
        let walker = try #require(FileManager.default.enumerator(atPath: api.path))
        while let path = walker.nextObject() as? String {
            guard path.hasSuffix("index.json"), let kind = path.split(separator: "/").first,
                  kinds.contains(String(kind)) else { continue }
            let data = try Data(contentsOf: api.appendingPathComponent(path))
            files[path] = try JSONSerialization.jsonObject(with: data) as? NSObject
        }
        return files
    }

    /// The ten default kinds, and the whole API (every endpoint, meta, encounters).
    @Test(arguments: ["default", "all"])
    func pokesyncMirrorsFromServeAndItsSecondSyncTakesTheNoChangeShortcut(kinds: String) async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder, from: kinds == "all" ? ServeMirror.whole2026 : TestPaths.sample2026, kinds: kinds)
            let server = try await ServeProcess(mirror: mirror)
            let copy = PokesyncCLI(mirror: folder.appendingPathComponent("Copy"))
            let full = try await copy.run(["full", "--source", "\(server.base)/api/v2", "--sprites", "none", "--kinds", kinds])
            #expect(full.status == 0, "\(full.stderr)")
            // Both exports are the same bytes.
            let served = folder.appendingPathComponent("served"), copied = folder.appendingPathComponent("copied")
            #expect(try await PokesyncCLI(mirror: mirror).run(["export", "--format", "api-data", "--out", served.path]).status == 0)
            #expect(try await copy.run(["export", "--format", "api-data", "--out", copied.path]).status == 0)
            let difference = try await runProgram("diff", ["-r", "-x", ".pokesync-export", served.path, copied.path])
            #expect(difference.status == 0, "\(difference.text.prefix(500))")
            // Nothing changed: the deploy hash (X-PokeAPI-Hash) is the same, no version is published.
            let sync = try await copy.run(["sync", "--source", "\(server.base)/api/v2", "--sprites", "none", "--kinds", kinds])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect((sync.stdout + sync.stderr).contains("is the same as at version 1"), "\(sync.stdout) \(sync.stderr)")
            #expect(sync.stdout.contains("no changes since version 1"))
            #expect(await server.stop().status == 0)
        }
    }

    @Test func curlFollowsNextToTheEnd() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            var next: String? = "\(server.base)/api/v2/move/?limit=7"
            var names: [String] = []
            var count: Int?
            var pages = 0
            while let url = next, pages < 100 {
                pages += 1
                let output = try await runProgram("curl", ["-sS", "--fail", "-H", "Accept-Encoding: gzip", "--compressed", url])
                #expect(output.status == 0, "\(url): \(output.stderr)")
                let page = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
                count = page["count"] as? Int
                names += (page["results"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                next = page["next"] as? String
            }
            #expect(pages == 10)
            #expect(count == 68 && names.count == 68 && Set(names).count == 68)
            await server.stop()
        }
    }

    static let ditto = DittoOracle.ditto

    @Test(.enabled(if: ditto != nil, DittoOracle.skipMessage))
    func dittoCloneOfTheWholeAPIWritesTheExportedTree() async throws {
        try await withTemporaryDirectory { folder in
            // Every endpoint, meta, and each pokemon's encounters, which ditto clones with it.
            let mirror = try await ServeMirror.make(folder, from: ServeMirror.whole2026, kinds: "all")
            let server = try await ServeProcess(mirror: mirror)
            let cloned = folder.appendingPathComponent("cloned")
            let clone = try await runProgram(try #require(Self.ditto), ["clone", "--src-url", server.base, "--dest-dir", cloned.path])
            #expect(clone.status == 0, "\(clone.stderr.suffix(1000))")
            let exported = folder.appendingPathComponent("exported")
            let export = try await PokesyncCLI(mirror: mirror).run(["export", "--format", "api-data", "--out", exported.path])
            #expect(export.status == 0, "\(export.stderr)")
            let kinds = Set(try FileManager.default.contentsOfDirectory(atPath: exported.appendingPathComponent("api/v2").path))
            let want = try Self.tree(exported, kinds: kinds.union(["index.json"])), got = try Self.tree(cloned, kinds: kinds.union(["index.json"]))
            #expect(want.count > 150)
            #expect(want["index.json"] != nil && want["meta/index.json"] != nil && want["pokemon/10196/encounters/index.json"] != nil)
            #expect(Set(want.keys) == Set(got.keys), "\(Set(want.keys).symmetricDifference(got.keys).sorted().prefix(10))")
            for (path, value) in want where got[path] != value { Issue.record("\(path) differs") }
            // ditto writes two-space JSON.
            let sample = try String(contentsOf: cloned.appendingPathComponent("api/v2/type/1/index.json"), encoding: .utf8)
            #expect(sample.hasPrefix("{\n  \""))
            await server.stop()
        }
    }
}
