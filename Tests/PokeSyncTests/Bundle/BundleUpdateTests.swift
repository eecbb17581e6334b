import Foundation
import Testing
@testable import PokeSyncCore
import PokeSQLite
import PokedexReader

/// The nightly path end to end, as <doc:PokeSyncCore/DataFlow> draws it: a mirror exports, a device installs,
/// upstream changes, the mirror syncs and exports a delta, the device updates through it.
@Suite("Bundle update, end to end", .serialized)
struct BundleUpdateTests {
    /// Every row of every schema table, in key order, as text.
    static func rows(_ database: URL) throws -> [String: [String]] {
        let connection = try Database(path: database.path, mode: .immutable)
        var tables: [String: [String]] = [:]
        for table in DeviceSchema.tables where table.name != "meta" {
            let columns = table.columns.joined(separator: ", ")
            tables[table.name] = try connection.rows("SELECT \(columns) FROM \(table.name) ORDER BY \(columns)", []) { row in
                (0..<Int32(table.columns.count)).map { row.isNull($0) ? "NULL" : row.text($0) }.joined(separator: "|")
            }
        }
        return tables
    }

    @Test func aDeviceUpdatesThroughTheDeltaToWhatTheFullBundleHolds() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let device = scratch.appendingPathComponent("device")
            let bundles = cli.mirror.appendingPathComponent("bundles")
            // Version 2 is version 1 with one small upstream fix (pikachu's weight), so export
            // writes a delta and the device must take it (the real 2025 -> 2026 update changes
            // nearly every document: its delta is not smaller than the full bundle).
            let fixed = scratch.appendingPathComponent("fixed-upstream")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: fixed)
            let pikachu = TestPaths.document(in: fixed, kind: "pokemon", id: 25)
            let original = try String(contentsOf: pikachu, encoding: .utf8)
            #expect(original.contains("\"weight\": 60"))
            try original.replacingOccurrences(of: "\"weight\": 60", with: "\"weight\": 61").write(to: pikachu, atomically: true, encoding: .utf8)
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let arguments = ["--source", server.baseURL.absoluteString, "--sprite-source",
                                 server.spriteBaseURL.absoluteString, "--sprites", "default"]
                #expect(try await cli.run(["full"] + arguments).status == 0)
                #expect(try await cli.run(["export"]).status == 0)
                let first = try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false)
                #expect(first.status == 0 && first.stdout.contains("installed version 1"), "\(first.stdout) \(first.stderr)")
            }
            let published = try FileManager.default.attributesOfItem(atPath: bundles.appendingPathComponent("pokedex-1.tar.gz").path)
            try await withStandInServer(root: fixed) { server in
                let arguments = ["--source", server.baseURL.absoluteString, "--sprite-source",
                                 server.spriteBaseURL.absoluteString, "--sprites", "default"]
                let sync = try await cli.run(["sync"] + arguments)
                #expect(sync.status == 0, "\(sync.stderr)")
            }
            let export = try await cli.run(["export"])
            #expect(export.status == 0, "\(export.stderr)")
            // A published file never changes.
            let kept = try FileManager.default.attributesOfItem(atPath: bundles.appendingPathComponent("pokedex-1.tar.gz").path)
            #expect(kept[.modificationDate] as? Date == published[.modificationDate] as? Date)
            #expect(kept[.systemFileNumber] as? Int == published[.systemFileNumber] as? Int)

            let index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: bundles.appendingPathComponent("index.json")))
            #expect(index.latest == 2)
            let verify = try await cli.run(["verify", bundles.path], addMirror: false)
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")

            let update = try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false)
            #expect(update.status == 0 && update.stdout.contains("installed version 2"), "\(update.stdout) \(update.stderr)")
            // The path this test names: the index offers the delta and the device takes it.
            #expect(index.deltas.map(\.from) == [1], "\(export.stdout)")
            #expect(update.stdout.contains("delta from 1"), "\(update.stdout)")
            #expect(try await runTool("sqlite3", [device.appendingPathComponent("current/pokedex.sqlite").path,
                                            "SELECT weight FROM pokemon WHERE id = 25"]) == "61")
            // Row for row what the full bundle of version 2 holds.
            let full = scratch.appendingPathComponent("full")
            try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
            try await runTool("tar", ["xzf", bundles.appendingPathComponent("pokedex-2.tar.gz").path, "-C", full.path])
            let installed = device.appendingPathComponent("current/pokedex.sqlite")
            #expect(try Self.rows(installed) == Self.rows(full.appendingPathComponent("pokedex.sqlite")))
            // The search table, rebuilt for what the delta touched, equals the one the builder wrote.
            let search = "SELECT pokemon_id, text FROM pokemon_search ORDER BY 1, 2"
            #expect(try await runTool("sqlite3", [installed.path, search])
                    == runTool("sqlite3", [full.appendingPathComponent("pokedex.sqlite").path, search]))
            #expect(try await runTool("sqlite3", [installed.path, "SELECT value FROM meta WHERE key = 'version'"]) == "2")
            // The sprites the device has are the bundle's.
            #expect(FileManager.default.fileExists(atPath: device.appendingPathComponent("current/sprites/pokemon/25.png").path))
            let again = try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false)
            #expect(again.status == 0 && again.stdout.contains("already"), "\(again.stdout)")
        }
    }

    @Test func filesTheIndexStopsNamingGoAfterTheGracePeriod() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try FileManager.default.createDirectory(at: cli.mirror, withIntermediateDirectories: true)
            try Data(#"{"bundles": {"grace_hours": 0}}"#.utf8).write(to: cli.mirror.appendingPathComponent("mirror.json"))
            let bundles = cli.mirror.appendingPathComponent("bundles")
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)
            // Named by the index no more, but within its grace period (it starts now).
            #expect(FileManager.default.fileExists(atPath: bundles.appendingPathComponent("pokedex-1.tar.gz").path))
            let later = try await cli.run(["export", "--sprites", "none"])
            #expect(later.status == 0 && later.stdout.contains("removed after the grace period: pokedex-1.tar.gz"), "\(later.stdout)")
            #expect(!FileManager.default.fileExists(atPath: bundles.appendingPathComponent("pokedex-1.tar.gz").path))
            #expect(FileManager.default.fileExists(atPath: bundles.appendingPathComponent("pokedex-2.tar.gz").path))
            // prune drops version 1: its delta leaves the index.
            #expect(try await cli.run(["prune", "--keep", "1"]).status == 0)
            let index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: bundles.appendingPathComponent("index.json")))
            #expect(index.deltas.isEmpty)
        }
    }
}
