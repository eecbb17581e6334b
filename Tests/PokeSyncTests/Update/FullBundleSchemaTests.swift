import Foundation
import PokeSQLite
import PokedexReader
import Testing
@testable import PokeSyncCore

/// A full bundle's `pokedex.sqlite` is checked like a delta's `changes.sqlite`: its views,
/// triggers and indexes are code that the digest check, `verify` and every app query
/// run, so only the reader's own are accepted (a red team's break: a full bundle whose
/// `pokemon_move` was an endless recursive view hung install and verify for ever).
@Suite("Full bundle schema", .serialized)
struct FullBundleSchemaTests {
    /// A bundles folder at version 2 holding only a full bundle whose database's
    /// `pokemon_move` is `edit`ed; hashes, sizes, manifest and content_digest all hold.
    static func hostileFull(_ world: UpdaterTests.World, in folder: URL, _ edit: (Database) throws -> Void) async throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = world.versions[1]
        let database = folder.appendingPathComponent(".pokedex.sqlite")
        try FileManager.default.copyItem(at: target.database, to: database)
        let db = try Database(path: database.path)
        try edit(db)
        try db.execute("VACUUM")
        let archive = folder.appendingPathComponent("pokedex-2.tar.gz")
        let full = try await UpdateFixtures.writeArchive(archive, manifest: UpdateFixtures.manifest(for: target, base: nil),
                                                   files: ["pokedex.sqlite": database])
        try UpdateFixtures.writeIndex(folder, full: full, deltas: [])
        try FileManager.default.removeItem(at: database)
        return archive
    }

    static func endlessView(_ db: Database) throws {
        let table = try Hardening.require(DeviceSchema.tables.first { $0.name == "pokemon_move" })
        let columns = table.columns.map { "n AS \"\($0)\"" }.joined(separator: ", ")
        try db.execute("DROP TABLE pokemon_move")
        try db.execute("CREATE VIEW pokemon_move AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT \(columns) FROM r")
    }

    @Test("a full bundle whose pokedex.sqlite holds an endless view is 65 at once, by install, verify and show; the device is unchanged")
    func endlessViewRefused() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let hostile = root.appendingPathComponent("hostile", isDirectory: true)
            let archive = try await Self.hostileFull(world, in: hostile, Self.endlessView)
            let cli = PokesyncCLI(mirror: root)
            #expect(try await cli.run(["install", world.device.path, "--from", world.bundles(1).path], addMirror: false).status == 0)
            let before = try UpdaterTests().currentRows(world.device)
            let run = try await Hardening.run(cli, ["install", world.device.path, "--from", hostile.path], limit: 30)
            #expect(!run.killed, "install still ran after 30 s")
            #expect(run.result.status == 65 && run.result.stderr.contains("view pokemon_move"), "\(run.result.stderr)")
            #expect(try UpdaterTests().currentRows(world.device) == before)
            let verify = try await Hardening.run(cli, ["verify", archive.path], limit: 30)
            #expect(!verify.killed && verify.result.status == 65 && verify.result.stderr.contains("view pokemon_move"),
                    "\(verify.result.stderr)")
            // show --bundle reads an archive from anywhere through the same check.
            let show = try await Hardening.run(cli, ["show", "25", "--bundle", archive.path], limit: 30)
            #expect(!show.killed && show.result.status == 65 && show.result.stderr.contains("view pokemon_move"),
                    "\(show.result.stderr)")
        }
    }

    @Test("triggers, foreign views, virtual tables and generated columns are refused; the builders' databases pass")
    func schemaRule() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            #expect(DeviceDatabaseSchema.problem(at: world.versions[0].database) == nil)
            let edits: [(String, String)] = [
                ("trigger", "CREATE TRIGGER t AFTER DELETE ON pokemon BEGIN SELECT 1; END"),
                ("view", "CREATE VIEW v AS SELECT 1"),
                ("index", "CREATE INDEX i ON pokemon(name)"),
                ("virtual table", "CREATE VIRTUAL TABLE vt USING rtree(id, a, b)"),
                ("generated columns", "CREATE TABLE g(a INTEGER, b AS (a * 2))"),
            ]
            for (what, sql) in edits {
                let copy = root.appendingPathComponent("copy-\(what.replacingOccurrences(of: " ", with: "-")).sqlite")
                try FileManager.default.copyItem(at: world.versions[0].database, to: copy)
                try? Database(path: copy.path).execute(sql)
                let problem = DeviceDatabaseSchema.problem(at: copy)
                #expect(problem?.contains(what) == true, "\(what): \(problem ?? "accepted")")
            }
            // A database built by the reader's own DDL passes, views and triggers included.
            let built = root.appendingPathComponent("built.sqlite")
            try DeviceSchema.create(in: Database(path: built.path))
            #expect(DeviceDatabaseSchema.problem(at: built) == nil)
        }
    }
}
