import Foundation
import PokeSQLite
import PokedexReader
@testable import PokeSyncCore

/// Helpers for the tests of what a red team found in the updater: CLI runs with a guard against hangs,
/// peak memory from /proc, and hostile bundles folders built from the update world.
enum Hardening {
    /// Runs the CLI, killing it after `limit` seconds (a hang must fail the test, not hold
    /// the suite); returns its result, whether it was killed, and its peak RSS in kB
    /// (VmHWM, sampled from /proc while it runs).
    static func run(_ cli: PokesyncCLI, _ arguments: [String], limit: Double = 60)
        async throws -> (result: PokesyncCLI.Result, killed: Bool, peakKB: Int) {
        let child = cli.start(arguments, addMirror: false)
        try child.process.run()
        let start = Date()
        var killed = false
        var peak = 0
        while child.process.isRunning {
            if let status = try? String(contentsOfFile: "/proc/\(child.process.processIdentifier)/status", encoding: .utf8),
               let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kb = Int(line.split(separator: " ").dropFirst().first ?? "") {
                peak = max(peak, kb)
            }
            if Date().timeIntervalSince(start) > limit {
                kill(child.process.processIdentifier, SIGKILL)
                killed = true
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        await child.waitUntilExit()
        return (child.result(), killed, peak)
    }

    /// Copies a bundles folder and rewrites its index.json with `edit` (as JSON objects).
    static func lyingCopy(of bundles: URL, to folder: URL, _ edit: (inout [String: Any]) -> Void) throws {
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.copyItem(at: bundles, to: folder)
        let file = folder.appendingPathComponent("index.json")
        var index = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as! [String: Any]
        edit(&index)
        try JSONSerialization.data(withJSONObject: index).write(to: file)
    }

    /// A bundles folder at version 2 (full + delta 1-2) whose delta's changes.sqlite has,
    /// in place of `pokemon_move`, a view over an endless recursive CTE; its hashes, sizes
    /// and manifest are all valid.
    static func recursiveViewDelta(_ world: UpdaterTests.World, in folder: URL) async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (base, target) = (world.versions[0], world.versions[1])
        let full = try await UpdateFixtures.writeFullBundle(target, into: folder)
        let work = folder.appendingPathComponent(".work", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let changes = work.appendingPathComponent("changes.sqlite")
        let summary = try DeltaBuilder(old: base.database, new: target.database)
            .write(to: changes, oldSpriteHashes: try UpdateFixtures.spriteHashes(base),
                   newSpriteHashes: try UpdateFixtures.spriteHashes(target))
        let table = try Hardening.require(DeviceSchema.tables.first { $0.name == "pokemon_move" })
        let db = try Database(path: changes.path)
        try db.execute("DROP TABLE pokemon_move")
        let columns = table.columns.map { "n AS \"\($0)\"" }.joined(separator: ", ")
        try db.execute("CREATE VIEW pokemon_move AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT \(columns) FROM r")
        try db.execute("VACUUM")
        var files = ["changes.sqlite": changes]
        for path in summary.sprites.included { files[path] = target.spriteRoot.appendingPathComponent(path) }
        let delta = try await UpdateFixtures.writeArchive(folder.appendingPathComponent("pokedex-1-2.delta.tar.gz"),
                                                    manifest: UpdateFixtures.manifest(for: target, base: base,
                                                                                      removedSprites: summary.sprites.removed),
                                                    files: files)
        try UpdateFixtures.writeIndex(folder, full: full, deltas: [delta])
    }

    struct Missing: Error {}

    static func require<T>(_ value: T?) throws -> T {
        guard let value else { throw Missing() }
        return value
    }
}



