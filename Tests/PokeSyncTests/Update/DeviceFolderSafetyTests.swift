import Foundation
import Testing
import PokedexReader

/// What red-teaming the installer found, kept: it never touches a folder it did not make,
/// never follows a link out of it, and trusts no index or bundle that disagrees with itself.
@Suite("Installer safety, end to end", .serialized)
struct DeviceFolderSafetyTests {
    /// A mirror of the 2026 sample with its bundles exported (no sprites).
    static func withBundles(_ body: (PokesyncCLI, URL, URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)
            try await body(cli, cli.mirror.appendingPathComponent("bundles"), scratch)
        }
    }

    @Test func aFolderHoldingSomeoneElsesFilesIsLeftAlone() async throws {
        try await Self.withBundles { cli, bundles, scratch in
            let home = scratch.appendingPathComponent("home")
            try FileManager.default.createDirectory(at: home.appendingPathComponent(".tmp"), withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: home.appendingPathComponent(".tmp/important.txt"))
            try Data("mine".utf8).write(to: home.appendingPathComponent("notes.txt"))
            let refused = try await cli.run(["install", home.path, "--from", bundles.path], addMirror: false)
            #expect(refused.status == 64 && refused.stderr.contains("not a device folder"), "\(refused.stderr)")
            #expect(try String(contentsOf: home.appendingPathComponent(".tmp/important.txt"), encoding: .utf8) == "mine")

            // A device whose .tmp is a link out of it: nothing is removed through the link.
            let device = scratch.appendingPathComponent("device"), victim = scratch.appendingPathComponent("victim")
            #expect(try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false).status == 0)
            try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
            try Data("keep".utf8).write(to: victim.appendingPathComponent("p.txt"))
            try FileManager.default.removeItem(at: device.appendingPathComponent(".tmp"))
            try FileManager.default.createSymbolicLink(at: device.appendingPathComponent(".tmp"), withDestinationURL: victim)
            let linked = try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false)
            #expect(linked.status == 64, "\(linked.stderr)")
            #expect(FileManager.default.fileExists(atPath: victim.appendingPathComponent("p.txt").path))
        }
    }

    @Test func anIndexWhoseVersionsDisagreeIsRefused() async throws {
        try await Self.withBundles { cli, bundles, scratch in
            let lying = scratch.appendingPathComponent("lying")
            try FileManager.default.copyItem(at: bundles, to: lying)
            let indexFile = lying.appendingPathComponent("index.json")
            var index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: indexFile)) as? [String: Any])
            index["latest"] = 5
            try JSONSerialization.data(withJSONObject: index).write(to: indexFile)
            let device = scratch.appendingPathComponent("device")
            let refused = try await cli.run(["install", device.path, "--from", lying.path], addMirror: false)
            #expect(refused.status == 65 && refused.stderr.contains("version 5"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: device.appendingPathComponent("current").path))
            #expect(try await cli.run(["verify", lying.path], addMirror: false).status == 65)
        }
    }

    @Test func aWALDatabaseOrAnExtraFileIsNeverABundle() async throws {
        try await withTemporaryDirectory { scratch in
            let database = scratch.appendingPathComponent("wal.sqlite")
            try await runTool("sqlite3", [database.path, "PRAGMA journal_mode=WAL; CREATE TABLE t(x);"])
            #expect(!BundleManifest.isRollbackJournal(database.path))
            let plain = scratch.appendingPathComponent("plain.sqlite")
            try await runTool("sqlite3", [plain.path, "CREATE TABLE t(x);"])
            #expect(BundleManifest.isRollbackJournal(plain.path))
            func manifest(_ paths: [String], delta: Bool = false) -> BundleManifest {
                BundleManifest(format: delta ? BundleManifest.deltaFormat : BundleManifest.fullFormat, lineage: "l", version: 2,
                               createdAt: "", source: "", profile: BundleProfile(), contentDigest: "", unpackedSize: 0,
                               files: paths.map { BundleManifest.File(path: $0, size: 0, sha256: "") })
            }
            #expect(manifest(["pokedex.sqlite", "sprites/pokemon/25.png"]).fileListProblem == nil)
            #expect(manifest(["pokedex.sqlite", "pokedex.sqlite-wal"]).fileListProblem?.contains("pokedex.sqlite-wal") == true)
            #expect(manifest(["sprites/pokemon/25.png"]).fileListProblem != nil)
            #expect(manifest(["changes.sqlite"], delta: true).fileListProblem == nil)
        }
    }
}
