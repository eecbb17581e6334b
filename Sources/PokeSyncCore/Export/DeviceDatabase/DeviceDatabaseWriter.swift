import Foundation
import PokeArchive
import PokeSQLite
import PokedexReader

/// Writes rows into a new `pokedex.sqlite`: first a scratch file with no journal and no
/// syncs (nothing in it matters until it is complete), then `VACUUM INTO` a compact
/// copy, which is synced and renamed over the destination. A crash leaves the old file
/// or the new one, and at worst a stray scratch file named after the destination.
struct DeviceDatabaseWriter {
    let destination: URL

    struct Written {
        var digest: SHA256Digest
        var size: Int
        var rowCounts: [String: Int]
    }

    /// - Throws: `LocalFileError` or `DatabaseError` when a file cannot be written.
    func write(_ rows: DeviceRows, meta: [(String, String)]) throws -> Written {
        let folder = destination.deletingLastPathComponent()
        try FileSystem.createDirectory(folder)
        let scratch = folder.appendingPathComponent(".\(destination.lastPathComponent).building-\(getpid())")
        let compact = folder.appendingPathComponent(".\(destination.lastPathComponent).vacuum-\(getpid())")
        for file in [scratch, compact] { unlink(file.path) }
        defer { for file in [scratch, compact] { unlink(file.path) } }

        var rowCounts: [String: Int] = [:]
        let digest: SHA256Digest
        do {
            let database = try Database(path: scratch.path)
            try database.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")
            try DeviceSchema.create(in: database)
            try database.transaction { database in
                var tables = TableWriter(database: database, rows: rows)
                try DeviceRows.visitTables(&tables)
                rowCounts = tables.rowCounts
                precondition(Set(rowCounts.keys) == Set(DeviceSchema.tables.map(\.name)).subtracting([DeviceSchema.Table.meta.name]),
                              "DeviceRows.visitTables must name every table of DeviceSchema")
                try Self.insertShared(rows, database)
                try DeviceSearchIndex.rebuild(database)
                let insertMeta = try database.statement("INSERT INTO meta(key, value) VALUES (?, ?)")
                for (key, value) in meta { try insertMeta.run([.text(key), .text(value)]) }
            }
            digest = try ContentDigest.compute(database)
            try database.run("INSERT INTO meta(key, value) VALUES (?, ?)", [.text(DeviceSchema.MetaKey.contentDigest), .text(digest.hex)])
            rowCounts[DeviceSchema.Table.meta.name] = meta.count + 1
            rowCounts["pokemon_search"] = try database.integer("SELECT COUNT(*) FROM pokemon_search") ?? 0
            // VACUUM INTO writes every table afresh in key order, pages full, no free
            // list: the smallest file, and one that depends only on the content.
            try database.run("VACUUM INTO ?", [.text(compact.path)])
        }
        try Self.setRollbackJournal(compact)
        try FileSystem.syncReporting(compact)
        guard rename(compact.path, destination.path) == 0 else { throw LocalFileError(path: destination.path, errno: errno) }
        try FileSystem.syncReporting(folder)
        let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
        return Written(digest: digest, size: size, rowCounts: rowCounts)
    }

    /// Inserts each table's rows as they are, by column name (`DeviceRowColumns`), but for
    /// the view tables, which `insertShared` fills through their builder tables (their
    /// first row is still held to the declaration); counts every table's rows.
    private struct TableWriter: DeviceTableVisitor {
        typealias Failure = any Error
        let database: Database
        let rows: DeviceRows
        var rowCounts: [String: Int] = [:]

        mutating func visit<Row: DeviceTableRow>(_ table: DeviceSchema.Table, _ path: WritableKeyPath<DeviceRows, [Row]>) throws {
            let rows = self.rows[keyPath: path]
            rowCounts[table.name] = rows.count
            let columns = DeviceRowColumns(table)
            if case .view = table.storage {
                if let first = rows.first { _ = columns.values(of: first) }
                return
            }
            let marks = table.columns.map { _ in "?" }.joined(separator: ", ")
            let statement = try database.statement("INSERT INTO \(table.quotedName)(\(table.columnList)) VALUES (\(marks))")
            for row in rows { try statement.run(columns.values(of: row)) }
        }
    }

    /// The shipped file is in rollback-journal mode (never WAL: a read-only copy must
    /// open without a `-shm`). VACUUM INTO of a journal-less scratch file already gives
    /// that; setting it explicitly keeps it so whatever the scratch file's mode was.
    static func setRollbackJournal(_ file: URL) throws {
        let database = try Database(path: file.path)
        try database.execute("PRAGMA journal_mode=DELETE;")
    }
}
