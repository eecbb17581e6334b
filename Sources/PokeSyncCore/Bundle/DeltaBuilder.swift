import Foundation
import PokeSQLite
import PokedexReader

/// Writes `changes.sqlite`, the delta any SQLite can apply (<doc:PokeSyncCore/Bundles#Deltas>), from two device
/// databases of one lineage and profile.
///
/// Works on ``DeviceSchema``'s logical tables only, so it does not depend on how the
/// builder lays them out physically: an entity (``DeviceSchema/Entity``) changed when
/// any of its tables differs, row for row, between the two files (SQL `EXCEPT` both
/// ways over ATTACHed databases). `changes.sqlite` then holds every row of each added or
/// changed entity, `removed(entity, id)` names every changed or removed entity that the
/// old database has, and `meta` holds the new database's meta (without
/// `content_digest`, which the manifest carries).
package struct DeltaBuilder: Sendable {
    /// What a delta changes, by entity, plus the sprite changes.
    package struct Summary: Sendable, Equatable {
        /// Ids of entities added or changed (their rows are in the delta), by entity.
        package var upserted: [DeviceSchema.Entity: [Int]]
        /// Ids named in `removed` (changed or removed entities the old database has).
        package var removed: [DeviceSchema.Entity: [Int]]
        /// The sprite changes, when the caller gave sprite hashes.
        package var sprites: SpriteChanges
    }

    /// The sprite files a delta carries and the ones it removes.
    package struct SpriteChanges: Sendable, Equatable {
        /// Bundle paths (`sprites/pokemon/25.png`) the new version has that the old one
        /// lacks, or holds with other bytes: the delta includes their bytes.
        package var included: [String]
        /// Bundle paths the old version has and the new one does not: `removed_sprites`.
        package var removed: [String]

        package init(included: [String] = [], removed: [String] = []) {
            self.included = included
            self.removed = removed
        }
    }

    package let old: URL
    package let new: URL
    /// The schema whose declared columns are compared and carried.
    package let tables: [DeviceSchema.Table]

    /// - Parameters:
    ///   - old: the base version's `pokedex.sqlite`.
    ///   - new: the target version's `pokedex.sqlite`.
    ///   - tables: the schema (its own; a test passes one with a column added).
    package init(old: URL, new: URL, tables: [DeviceSchema.Table] = DeviceSchema.tables) {
        self.old = old
        self.new = new
        self.tables = tables
    }

    /// Writes `changes.sqlite` at `destination` (written aside, then renamed into place).
    /// - Parameters:
    ///   - oldSpriteHashes: hex SHA-256 of each sprite file the old version bundles, by bundle path
    ///     (without them, a sprite path both versions bundle counts as unchanged).
    ///   - newSpriteHashes: the same for the new version.
    /// - Returns: what the delta changes.
    /// - Throws: ``ExportError.deltaBuild`` when `destination` exists or a database lacks a
    ///   schema table; `DatabaseError` when SQLite fails.
    @discardableResult
    package func write(to destination: URL, oldSpriteHashes: [String: String] = [:],
                      newSpriteHashes: [String: String] = [:]) throws -> Summary {
        let fileManager = FileManager.default
        guard !fileManager.fileExists(atPath: destination.path) else {
            throw ExportError.deltaBuild(path: destination.path, reason: "already exists; a delta is never overwritten")
        }
        let aside = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        defer { try? fileManager.removeItem(at: aside) }
        var summary = try writeDatabase(at: aside)
        summary.sprites = try spriteChanges(oldHashes: oldSpriteHashes, newHashes: newSpriteHashes)
        try fileManager.moveItem(at: aside, to: destination)
        return summary
    }

    private func writeDatabase(at path: URL) throws -> Summary {
        let database = try Database(path: path.path)
        // Small pages: a delta is mostly tables of a few rows each, and each table takes
        // at least a page.
        try database.execute("PRAGMA page_size = 1024; PRAGMA journal_mode = DELETE")
        try database.run("ATTACH DATABASE ? AS old", [.text(old.path)])
        try database.run("ATTACH DATABASE ? AS new", [.text(new.path)])
        for table in tables {
            try requireTable(table, in: "old", path: old.path, database)
            try requireTable(table, in: "new", path: new.path, database)
        }
        var summary = Summary(upserted: [:], removed: [:], sprites: SpriteChanges())
        try database.transaction { database in
            for table in tables {
                let key = table.keyList
                // WITHOUT ROWID: the rows live in their key's b-tree, with no second copy in an
                // index beside them (half the size of a small delta).
                try database.execute("CREATE TABLE main.\(table.quotedName) (\(table.columnList), PRIMARY KEY (\(key))) WITHOUT ROWID")
            }
            try database.execute("CREATE TABLE main.removed (entity TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (entity, id)) WITHOUT ROWID")
            try database.execute("CREATE TEMP TABLE changed (entity TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (entity, id))")
            for entity in DeviceSchema.Entity.allCases {
                let (upserted, removed) = try writeEntity(entity, database)
                summary.upserted[entity] = upserted
                summary.removed[entity] = removed
            }
            // meta belongs to no entity: the delta carries the new one whole, without the
            // digest (the manifest's content_digest is what the device checks against).
            try database.execute("""
                INSERT INTO main.meta (key, value) SELECT key, value FROM new.meta
                WHERE key <> '\(DeviceSchema.MetaKey.contentDigest)' ORDER BY key
                """)
        }
        try database.execute("DETACH DATABASE old")
        try database.execute("DETACH DATABASE new")
        try database.execute("VACUUM")
        return summary
    }

    /// Finds the entity's changed ids, writes their rows and `removed`, and returns
    /// (ids whose rows the delta holds, ids named in `removed`), ascending.
    private func writeEntity(_ entity: DeviceSchema.Entity, _ database: Database) throws -> ([Int], [Int]) {
        let tables = DeviceSchema.tables(of: entity, in: self.tables)
        for table in tables {
            let columns = table.columnList
            let first = table.entityColumn
            let name = table.quotedName
            try database.run("""
                INSERT OR IGNORE INTO temp.changed (entity, id)
                SELECT ?, \(first) FROM (SELECT \(columns) FROM new.\(name) EXCEPT SELECT \(columns) FROM old.\(name))
                UNION
                SELECT ?, \(first) FROM (SELECT \(columns) FROM old.\(name) EXCEPT SELECT \(columns) FROM new.\(name))
                """, [.text(entity.rawValue), .text(entity.rawValue)])
        }
        let inOld = tables.map { "id IN (SELECT \($0.entityColumn) FROM old.\($0.quotedName))" }
            .joined(separator: " OR ")
        try database.run("""
            INSERT INTO main.removed (entity, id) SELECT entity, id FROM temp.changed
            WHERE entity = ? AND (\(inOld)) ORDER BY id
            """, [.text(entity.rawValue)])
        for table in tables {
            let columns = table.columnList
            let key = table.keyList
            try database.run("""
                INSERT INTO main.\(table.quotedName) (\(columns)) SELECT \(columns) FROM new.\(table.quotedName)
                WHERE \(table.entityColumn) IN (SELECT id FROM temp.changed WHERE entity = ?) ORDER BY \(key)
                """, [.text(entity.rawValue)])
        }
        let root = entity.rootTable.quotedName
        let upserted = try database.rows("""
            SELECT id FROM temp.changed WHERE entity = ? AND id IN (SELECT id FROM new.\(root)) ORDER BY id
            """, [.text(entity.rawValue)]) { $0.int(0) }
        let removed = try database.rows("SELECT id FROM main.removed WHERE entity = ? ORDER BY id",
                                        [.text(entity.rawValue)]) { $0.int(0) }
        return (upserted, removed)
    }

    private func requireTable(_ table: DeviceSchema.Table, in schema: String, path: String, _ database: Database) throws {
        let found = try database.integer("SELECT count(*) FROM \(schema).sqlite_master WHERE name = ? AND type IN ('table', 'view')",
                                         [.text(table.name)]) ?? 0
        guard found > 0 else { throw ExportError.deltaBuild(path: path, reason: "has no table \(table.name)") }
    }

    private func spriteChanges(oldHashes: [String: String], newHashes: [String: String]) throws -> SpriteChanges {
        let oldPaths = Set(try bundledSpritePaths(in: old))
        let newPaths = try bundledSpritePaths(in: new)
        var changes = SpriteChanges()
        // A path without hashes on either side counts as unchanged: only its presence is compared.
        for path in newPaths where !oldPaths.contains(path) || oldHashes[path] != newHashes[path] {
            changes.included.append(path)
        }
        let kept = Set(newPaths)
        changes.removed = oldPaths.subtracting(kept).sorted()
        return changes
    }

    /// The distinct non-null `pokemon_sprite.path` values, sorted.
    private func bundledSpritePaths(in file: URL) throws -> [String] {
        let database = try Database(path: file.path, mode: .readOnly)
        return try database.rows("SELECT DISTINCT path FROM pokemon_sprite WHERE path IS NOT NULL ORDER BY path") {
            $0.text(0)
        }
    }

}
