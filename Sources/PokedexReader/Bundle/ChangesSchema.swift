import Foundation
import PokeSQLite

/// What a delta's `changes.sqlite` may hold: it is data, never code. Exactly the device
/// schema's tables and `removed`, each with exactly its columns, and nothing else in
/// `sqlite_master`: no view (a recursive CTE in place of a table runs for ever), no
/// trigger, index, virtual or generated column. Checked from `sqlite_master` and
/// `PRAGMA table_xinfo` before any statement reads a row, by the updater and by
/// `pokesync verify` alike.
package enum ChangesSchema {
    /// The tables and columns a delta's database holds (DeltaBuilder writes these): the
    /// declared columns of `tables`, and `removed`.
    package static func expected(for tables: [DeviceSchema.Table] = DeviceSchema.tables) -> [String: [String]] {
        var expected = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.columns) })
        expected["removed"] = ["entity", "id"]
        return expected
    }

    /// Why the database at `path` is not a delta's `changes.sqlite` for the schema `tables`, or nil.
    package static func problem(at path: URL, tables: [DeviceSchema.Table] = DeviceSchema.tables) -> String? {
        let expected = Self.expected(for: tables)
        do {
            let database = try Database.readerConnection(path: path.path, mode: .immutable)
            // Reading the schema runs no user SQL; the bound is for a damaged file.
            database.limitWork(steps: 50_000_000)
            let objects = try database.rows("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master") {
                (type: $0.text(0), name: $0.text(1), sql: $0.text(3))
            }
            var seen: Set<String> = []
            for object in objects {
                guard object.type == "table", let columns = expected[object.name] else {
                    return "holds \(object.type) \(object.name.prefix(60)), which a delta never has"
                }
                guard object.sql.uppercased().hasPrefix("CREATE TABLE") else {
                    return "defines table \(object.name) as a virtual table, which a delta never has"
                }
                let info = try database.rows("SELECT name, hidden FROM pragma_table_xinfo(?)", [.text(object.name)]) {
                    (name: $0.text(0), hidden: $0.int(1))
                }
                guard info.map(\.name) == columns, info.allSatisfy({ $0.hidden == 0 }) else {
                    return "has table \(object.name) with columns \(info.map(\.name).joined(separator: ", ").prefix(120)), "
                        + "not \(columns.joined(separator: ", "))"
                }
                seen.insert(object.name)
            }
            let missing = Set(expected.keys.filter { $0 != DeviceSchema.Table.meta.name }).subtracting(seen).sorted()
            if let first = missing.first { return "has no table \(first)" }
            return nil
        } catch {
            return "cannot be read as SQLite: \(error)"
        }
    }
}
