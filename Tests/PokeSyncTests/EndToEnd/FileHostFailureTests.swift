import Foundation
import Testing
@testable import PokeSyncCore

/// A file host (sprites, cries) that turns bad between two runs: the documents still
/// publish, files the latest version holds are carried, files never held wait for the next
/// run, and a host that loses its files (404) never reaches phones as a version without
/// them unless the operator accepts it (`--allow-shrink`).
@Suite("Linked files: a file host's bad night", .serialized)
struct FileHostFailureTests {
    static let sample = TestPaths.sample2026
    /// The one document the second night changes upstream.
    static let changedDocument = "api/v2/pokemon/1020/index.json"

    /// A copy of the sample with one pokemon's base experience changed: a night with
    /// something to publish.
    static func changedSample(in scratch: URL) throws -> URL {
        let copy = scratch.appendingPathComponent("changed-sample")
        try FileManager.default.copyItem(at: sample, to: copy)
        let file = copy.appendingPathComponent(changedDocument)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"base_experience\": 295"))
        try text.replacingOccurrences(of: "\"base_experience\": 295", with: "\"base_experience\": 296")
            .write(to: file, atomically: true, encoding: .utf8)
        return copy
    }

    static func arguments(_ mode: String, _ server: StandInServer, cries: String, sprites: String = "default",
                          extra: [String] = []) -> [String] {
        [mode, "--source", server.baseURL.absoluteString, "--sprites", sprites,
         "--sprite-source", server.spriteBaseURL.absoluteString, "--cry-source", server.cryBaseURL.absoluteString,
         "--cries", cries] + extra
    }

    static func count(_ folder: URL) -> Int {
        SpriteMirrorTests.tree(folder).count
    }

    /// Runs `full` against a good host, then restarts the stand-in on the same port with
    /// the file host turned bad (`fault` on `tree`, or every file's bytes changed by `salt`)
    /// and hands both to `body`.
    static func withBadNight(_ scratch: URL, fault: String?, tree: String = "all", firstCries: String = "latest",
                             sprites: String = "default", root: URL? = nil, salt: String? = nil,
                             _ body: (PokesyncCLI, StandInServer) async throws -> Void) async throws {
        let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
        let port = try await withStandInServer(root: sample) { server -> Int in
            let full = try await cli.run(arguments("full", server, cries: firstCries, sprites: sprites))
            try #require(full.status == 0, "\(full.stderr)")
            return server.port
        }
        var options = StandInOptions(root: root ?? sample)
        options.port = port
        options.fileHostFault = fault
        options.fileHostFaultTree = tree
        options.spriteSalt = salt
        try await withStandInServer(options) { server in try await body(cli, server) }
    }

    /// The host answers 404 for every cry (a moved repository) on a night with no document
    /// change (the deploy is the same): every cry the documents still link is carried with
    /// its bytes, the run says "no changes", exits 2 and its last line names the tree, the
    /// count and a URL; `--allow-shrink` drops them all, publishes and says how many. The
    /// same for sprites.
    @Test(arguments: ["cries", "sprites"])
    func aHostThatLosesItsFilesKeepsThemCarried(tree: String) async throws {
        try await withTemporaryDirectory { scratch in
            let changed = try Self.changedSample(in: scratch)
            try await Self.withBadNight(scratch, fault: "404", tree: tree, root: changed) { cli, server in
                let folder = cli.mirror.appendingPathComponent(tree)
                let held = SpriteMirrorTests.tree(folder)
                #expect(held.count >= 16)
                let sync = try await cli.run(Self.arguments("sync", server, cries: "latest"))
                #expect(sync.status == 2, "\(sync.stdout) \(sync.stderr)")
                #expect(sync.stdout.contains("no changes since version 1"), "\(sync.stdout)")
                let host = "127.0.0.1:\(server.port)"
                let line = try #require(sync.stdout.split(separator: "\n").last, "\(sync.stdout)")
                #expect(line.hasPrefix("warning: \(tree): \(held.count) carried from the version before (\(held.count) missing at their host: 404/410): \(host) failed"),
                        "\(line)")
                #expect(line.contains("\(server.origin.absoluteString)/PokeAPI/") && line.contains("HTTP 404 upstream"), "\(line)")
                #expect(SpriteMirrorTests.tree(folder) == held)
                #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)

                // The loss accepted on purpose: the version goes without them, and says how many.
                let accepted = try await cli.run(Self.arguments("sync", server, cries: "latest", extra: ["--allow-shrink"]))
                #expect(accepted.status == 0, "\(accepted.stdout) \(accepted.stderr)")
                #expect(accepted.stdout.contains("published version 2"), "\(accepted.stdout)")
                #expect(accepted.stdout.contains("\(tree): \(held.count) file(s) of version 1 dropped, missing at their host (404/410)"),
                        "\(accepted.stdout)")
                #expect(Self.count(folder) == 0)
            }
        }
    }

    /// The host fails every file (500, an error page with 200, a byte a second, a body with
    /// no end): the changed document publishes; every held file is carried with its bytes,
    /// the never-held legacy cries wait (serve keeps upstream's link); the run exits 2 and
    /// says so last, `status` and the diff say it; a delta of that version deletes nothing;
    /// the host is given up, not asked for each file five times; the next good night
    /// fetches what waited.
    @Test(arguments: ["500", "html", "drip", "endless"])
    func aFailingHostDoesNotHoldTheDocumentsBack(fault: String) async throws {
        try await withTemporaryDirectory { scratch in
            let changed = try Self.changedSample(in: scratch)
            var port = 0
            var cli: PokesyncCLI!
            try await Self.withBadNight(scratch, fault: fault, root: changed) { runner, server in
                cli = runner
                port = server.port
                let sprites = Self.count(cli.mirror.appendingPathComponent("sprites"))
                let cries = Self.count(cli.mirror.appendingPathComponent("cries"))
                try await server.resetStats()
                let sync = try await cli.run(Self.arguments("sync", server, cries: "all", extra: ["--timeout", "1"]))
                #expect(sync.status == 2, "\(sync.stdout) \(sync.stderr)")
                #expect(sync.stdout.contains("published version 2"), "\(sync.stdout)")
                let host = "127.0.0.1:\(server.port)"
                let lines = sync.stdout.split(separator: "\n").map(String.init)
                let warnings = lines.filter { $0.hasPrefix("warning: ") }
                #expect(lines.suffix(warnings.count) == warnings[...], "the warnings come last: \(sync.stdout)")
                #expect(warnings.contains { $0.hasPrefix("warning: cries: \(cries) carried from the version before, ") && $0.contains("left for the next run: \(host) failed") },
                        "\(sync.stdout)")
                #expect(warnings.contains { $0.hasPrefix("warning: sprites: \(sprites) carried from the version before: \(host) failed") },
                        "\(sync.stdout)")
                // The trees are as they were, and the version holds them.
                #expect(Self.count(cli.mirror.appendingPathComponent("sprites")) == sprites)
                #expect(Self.count(cli.mirror.appendingPathComponent("cries")) == cries)
                #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)

                // What a delta from version 1 would delete: nothing.
                let diff = try await cli.run(["diff", "--json"])
                let object = try #require(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
                let summary = try #require(object["summary"] as? [String: [String: Int]])
                #expect(summary["sprites"] == ["added": 0, "removed": 0, "changed": 0])
                #expect(summary["cries"] == ["added": 0, "removed": 0, "changed": 0])
                #expect(summary["pokemon"]?["changed"] == 1)
                let carried = try #require(object["carried"] as? [[String: Any]])
                #expect(carried.contains { $0["tree"] as? String == "cries" && $0["host"] as? String == host && $0["carried"] as? Int == cries })
                #expect(try await cli.run(["diff"]).stdout.contains("carried          cries: \(cries) carried from the version before"))

                let status = try await cli.run(["status"])
                #expect(status.stdout.contains("files    the last run (") && status.stdout.contains("published version 2"), "\(status.stdout)")
                let json = try await cli.run(["status", "--json"])
                let statusObject = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                let last = try #require(statusObject["last_run_carried"] as? [String: Any])
                let files = try #require(last["files"] as? [[String: Any]])
                #expect(files.count == 2 && last["version"] as? Int == 2, "\(json.stdout)")

                // Given up, not asked for every file five times.
                let stats = try await server.stats()
                let asked = stats.byPath.filter { $0.key.hasPrefix("/PokeAPI/") }.count
                #expect(asked < sprites + cries + 3, "\(asked) of \(sprites + cries + 3) files asked for")
                #expect(sync.stderr.contains("giving up on \(host) for the rest of this run"), "\(sync.stderr)")
            }

            // The host is back: the files that waited are fetched, nothing is carried.
            var options = StandInOptions(root: changed)
            options.port = port
            try await withStandInServer(options) { server in
                let sync = try await cli.run(Self.arguments("sync", server, cries: "all"))
                #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
                #expect(sync.stdout.contains("published version 3") && !sync.stdout.contains("warning:"), "\(sync.stdout)")
                #expect(Self.count(cli.mirror.appendingPathComponent("cries")) == 20)
                let status = try await cli.run(["status"])
                #expect(!status.stdout.contains("files    the last run"), "\(status.stdout)")
            }
        }
    }

    /// A sync with no changes whose host fails still says it: "no changes", exit 2, the
    /// warning, and `status`.
    @Test func anUnchangedNightStillSaysWhatItCarried() async throws {
        try await withTemporaryDirectory { scratch in
            try await Self.withBadNight(scratch, fault: "500") { cli, server in
                let sync = try await cli.run(Self.arguments("sync", server, cries: "latest", extra: ["--timeout", "1"]))
                #expect(sync.status == 2, "\(sync.stdout) \(sync.stderr)")
                #expect(sync.stdout.contains("no changes since version 1") && sync.stdout.contains("warning: cries: "), "\(sync.stdout)")
                let status = try await cli.run(["status"])
                #expect(status.stdout.contains("no changes since version 1"), "\(status.stdout)")
            }
        }
    }
}
