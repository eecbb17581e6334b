import Foundation
import PokedexReader
import PokeSQLite

/// Applies a delta's `changes.sqlite` to a copy of a device database, exactly as <doc:PokedexUpdater/Installing#Applying-a-delta>
/// says any client may: plain SQL in one transaction, no session extension.
///
/// For each entity `removed` names, its rows are deleted from each of its tables (by
/// the table's first key column); every row of `changes.sqlite`'s schema tables is
/// inserted; the search tables are rebuilt; `meta` is set from the delta and the
/// manifest. The copy is kept only when its `ContentDigest` equals the manifest's.
package struct DeltaApplier: Sendable {
    /// Rebuilds the search tables of a database after its rows changed.
    package typealias SearchRebuild = @Sendable (Database) throws -> Void

    private let rebuildSearch: SearchRebuild
    private let tables: [DeviceSchema.Table]

    /// - Parameter tables: the schema whose declared columns the delta carries (the
    ///   schema's own; a test passes one with a column added).
    /// - Parameter rebuildSearch: rebuilds the search tables inside the apply transaction
    ///   (<doc:PokedexUpdater/Installing#Applying-a-delta>: they are rebuilt on apply, not shipped in the delta), with the delta's
    ///   `changes.sqlite` attached as `changes`. The default is
    ///   ``DeviceSearchIndex/rebuildAfterDelta(_:)``: the rows of what the delta touched.
    package init(tables: [DeviceSchema.Table] = DeviceSchema.tables,
                 rebuildSearch: @escaping SearchRebuild = DeviceSearchIndex.rebuildAfterDelta) {
        self.tables = tables
        self.rebuildSearch = rebuildSearch
    }

    /// Copies `current` to `output`, applies `changes` to the copy and checks its digest.
    ///
    /// `output` must not exist. When anything fails, `output` is removed: the current
    /// database is never touched.
    /// - Parameters:
    ///   - changes: the delta's `changes.sqlite`.
    ///   - current: the installed database the delta's base version is.
    ///   - output: where the new database goes.
    ///   - manifest: the delta's manifest: meta values and the expected `content_digest`.
    ///   - stop: polled every 10,000 SQLite steps; true ends the apply with
    ///     `CancellationError` (default: the calling task's cancellation; a caller on a
    ///     thread of its own, as the updater's steps are, passes its own flag).
    /// - Throws: ``DeltaApplyError``: `.digestMismatch` when the result is not what the
    ///   manifest promises, `.invalidChanges` when `changes.sqlite` is not a delta,
    ///   `.io` when a file cannot be copied or written; `CancellationError` when `stop` says so.
    package func apply(changes: URL, to current: URL, writingTo output: URL, manifest: BundleManifest,
                      stop: @escaping @Sendable () -> Bool = { Task.isCancelled }) throws {
        let fileManager = FileManager.default
        do {
            // The copy is written, so it must be a file of its own: `copyItem` copies a link
            // as a link, and the apply would write through it, outside the device folder.
            try fileManager.copyItem(at: current.resolvingSymlinksInPath(), to: output)
            guard (try fileManager.attributesOfItem(atPath: output.path))[.type] as? FileAttributeType == .typeRegular else {
                try? fileManager.removeItem(at: output)
                throw DeltaApplyError.io(path: output.path, reason: "\(current.path) is not a plain file")
            }
        } catch let error as DeltaApplyError {
            throw error
        } catch {
            throw DeltaApplyError.io(path: output.path, reason: "cannot copy \(current.path): \(error.localizedDescription)")
        }
        do {
            if stop() { throw CancellationError() }
            try applyInPlace(changes: changes, database: output, manifest: manifest, stop: stop)
        } catch {
            try? fileManager.removeItem(at: output)
            throw error
        }
    }

    /// SQLite virtual-machine steps an apply may take per byte of the two databases: a
    /// sound delta needs a small fraction of it (the search rebuild and digest read every
    /// row a few times); a hostile one is stopped long before it fills anything.
    static let stepsPerByte = 2_000
    static let minimumSteps = 2_000_000_000

    private func applyInPlace(changes: URL, database path: URL, manifest: BundleManifest,
                              stop: @escaping @Sendable () -> Bool) throws {
        // Data, not code: nothing reads changes.sqlite before its schema is known to be a delta's.
        if let problem = ChangesSchema.problem(at: changes, tables: tables) {
            throw DeltaApplyError.invalidChanges(path: changes.path, reason: problem)
        }
        let database: Database
        do {
            database = try Database.readerConnection(path: path.path, mode: .readWrite)
            try database.execute("PRAGMA journal_mode = DELETE")
            // Temporary b-trees (sorts, VACUUM) stay in memory, bounded by the step budget,
            // never in a system temp folder nobody sweeps.
            try database.execute("PRAGMA temp_store = MEMORY")
        } catch {
            throw DeltaApplyError.io(path: path.path, reason: "\(error)")
        }
        let bytes = [changes, path].reduce(0) { total, url in
            total + ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)
        }
        database.limitWork(steps: max(Self.minimumSteps, min(bytes, 1 << 40) * Self.stepsPerByte),
                           stop: stop)
        do {
            try applyChecked(changes: changes, database: database, manifest: manifest)
        } catch {
            if stop() { throw CancellationError() }
            if database.workLimitReached {
                throw DeltaApplyError.invalidChanges(path: changes.path, reason: "needs more work than any delta may (stopped)")
            }
            throw error
        }
    }

    private func applyChecked(changes: URL, database: Database, manifest: BundleManifest) throws {
        do {
            try database.run("ATTACH DATABASE ? AS changes", [.text(changes.path)])
        } catch {
            throw DeltaApplyError.invalidChanges(path: changes.path, reason: "\(error)")
        }
        do {
            try database.transaction { database in
                for entity in DeviceSchema.Entity.allCases {
                    for table in DeviceSchema.tables(of: entity, in: tables) {
                        try database.run("""
                            DELETE FROM main.\(table.quotedName) WHERE \(table.entityColumn) IN
                            (SELECT id FROM changes.removed WHERE entity = ?)
                            """, [.text(entity.rawValue)])
                    }
                }
                for table in tables where table.entity != nil {
                    let columns = table.columnList
                    try database.execute("""
                        INSERT INTO main.\(table.quotedName) (\(columns)) SELECT \(columns) FROM changes.\(table.quotedName)
                        """)
                }
                try rebuildSearch(database)
                try setMeta(database, manifest: manifest)
            }
            try database.execute("DETACH DATABASE changes")
            // Compact only when deltas have left much free space: a VACUUM rewrites the whole
            // file, which would cost a small delta more than everything else it does.
            let free = try database.integer("PRAGMA freelist_count") ?? 0
            let pages = try database.integer("PRAGMA page_count") ?? 1
            if free * 10 > pages { try database.execute("VACUUM") }
        } catch {
            throw DeltaApplyError.invalidChanges(path: changes.path, reason: "applying it failed: \(error)")
        }
        let digest: String
        do {
            digest = try ContentDigest.compute(database, tables: tables).hex
        } catch {
            throw DeltaApplyError.invalidChanges(path: changes.path, reason: "the result cannot be digested: \(error)")
        }
        guard digest == manifest.contentDigest.lowercased() else {
            throw DeltaApplyError.digestMismatch(path: changes.path, expected: manifest.contentDigest, actual: digest)
        }
    }

    /// `meta` becomes the delta's meta, then the manifest's values for the keys <doc:PokedexReader/DeviceDatabase#The-meta-table> fixes.
    private func setMeta(_ database: Database, manifest: BundleManifest) throws {
        if try database.integer("SELECT count(*) FROM changes.sqlite_master WHERE name = 'meta'") ?? 0 > 0 {
            try database.execute("DELETE FROM main.meta")
            try database.execute("INSERT INTO main.meta (key, value) SELECT key, value FROM changes.meta")
        }
        let values: [(String, String)] = [
            (DeviceSchema.MetaKey.schemaVersion, String(manifest.schemaVersion)),
            (DeviceSchema.MetaKey.lineage, manifest.lineage),
            (DeviceSchema.MetaKey.version, String(manifest.version)),
            (DeviceSchema.MetaKey.createdAt, manifest.createdAt),
            (DeviceSchema.MetaKey.source, manifest.source),
            (DeviceSchema.MetaKey.profile, manifest.profile.json),
            (DeviceSchema.MetaKey.contentDigest, manifest.contentDigest.lowercased()),
        ]
        for (key, value) in values {
            try database.run("DELETE FROM main.meta WHERE key = ?", [.text(key)])
            try database.run("INSERT INTO main.meta (key, value) VALUES (?, ?)", [.text(key), .text(value)])
        }
    }

}

/// Why a delta was not applied. The current database is unchanged in every case.
package enum DeltaApplyError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The applied database's `content_digest` is not the manifest's.
    case digestMismatch(path: String, expected: String, actual: String)
    /// `changes.sqlite` is not a delta this reader can apply.
    case invalidChanges(path: String, reason: String)
    /// A file could not be copied, opened or written.
    case io(path: String, reason: String)

    package var description: String {
        switch self {
        case let .digestMismatch(path, expected, actual):
            "delta \(path) gives content_digest \(actual), not the manifest's \(expected); the copy was dropped"
        case let .invalidChanges(path, reason): "delta \(path) cannot be applied: \(reason)"
        case let .io(path, reason): "cannot write \(path): \(reason)"
        }
    }
}
