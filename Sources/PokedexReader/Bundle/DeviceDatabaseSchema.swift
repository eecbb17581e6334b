import Foundation
import PokeSQLite

/// What a full bundle's `pokedex.sqlite` may hold besides rows: its views, triggers and
/// indexes are code every later read runs (a view can be an endless recursive CTE, which
/// hangs the digest check, `verify` and every app query), so each must be one this
/// reader's own ``DeviceSchema/ddl`` makes, word for word (white space aside). Tables are data, but not
/// virtual and without generated columns (an expression run on every read). The
/// updater and `pokesync verify` both check it, from `sqlite_master` and
/// `PRAGMA table_xinfo`, before any statement reads a row; a delta's `changes.sqlite`
/// has its own, stricter rule (``ChangesSchema``).
package enum DeviceDatabaseSchema {
    /// The views, triggers and indexes the reader's DDL makes, by type and name, with their SQL.
    static let expectedCode = expectedCode(for: DeviceSchema.tables)

    /// The views, triggers and indexes the DDL of `tables` makes (a test's copy of the
    /// declaration has its own views), by type and name, with their SQL; empty when it
    /// does not build.
    static func expectedCode(for tables: [DeviceSchema.Table]) -> [String: String] {
        guard let database = try? Database.readerConnection(path: ":memory:", mode: .readWrite), (try? DeviceSchema.create(in: database, tables: tables)) != nil,
              let rows = try? database.rows("SELECT type, name, sql FROM sqlite_master WHERE type != 'table' AND sql IS NOT NULL", [], {
                  ($0.text(0) + " " + $0.text(1), normalized($0.text(2))) }) else { return [:] }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// `sql` with runs of white space made one space: an exporter that indents its DDL
    /// differently still makes the same statement.
    static func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Throws when the `pokedex.sqlite` at `path`, from the bundle named `file`, is not a
    /// device database this reader may run: what install, verify and `show --bundle` check.
    /// `tables` is the schema it is checked against (a test's copy of the declaration).
    /// - Throws: ``BundleCheckError`` naming `file` and the problem.
    package static func check(at path: URL, file: String, tables: [DeviceSchema.Table] = DeviceSchema.tables) throws(BundleCheckError) {
        if let problem = problem(at: path, tables: tables) {
            throw BundleCheckError(file: file, reason: "holds a \(BundleManifest.databaseName) that \(problem)")
        }
    }

    /// Why the database at `path` is not a device database this reader may run, or nil.
    package static func problem(at path: URL, tables: [DeviceSchema.Table] = DeviceSchema.tables) -> String? {
        let expectedCode = tables == DeviceSchema.tables ? expectedCode : expectedCode(for: tables)
        guard !expectedCode.isEmpty else { return "cannot be checked: the reader's own schema did not build" }
        do {
            let database = try Database.readerConnection(path: path.path, mode: .immutable)
            // Reading the schema runs no user SQL; the bound is for a damaged file.
            database.limitWork(steps: 50_000_000)
            let objects = try database.rows("SELECT type, name, coalesce(sql, '') FROM sqlite_master") {
                (type: $0.text(0), name: $0.text(1), sql: $0.text(2))
            }
            for object in objects {
                switch object.type {
                case "table":
                    guard object.sql.uppercased().hasPrefix("CREATE TABLE") else {
                        return "defines table \(object.name.prefix(60)) as a virtual table, which a device database never has"
                    }
                    let hidden = try database.integer("SELECT count(*) FROM pragma_table_xinfo(?) WHERE hidden != 0",
                                                      [.text(object.name)]) ?? 0
                    if hidden > 0 { return "has generated columns in table \(object.name.prefix(60)), which a device database never has" }
                case "index" where object.sql.isEmpty && object.name.hasPrefix("sqlite_autoindex_"):
                    continue  // made by a UNIQUE or PRIMARY KEY of its table
                default:
                    guard expectedCode[object.type + " " + object.name] == normalized(object.sql) else {
                        return "holds \(object.type) \(object.name.prefix(60)), which is not the reader's own"
                    }
                }
            }
            return nil
        } catch {
            return "cannot be read as SQLite: \(error)"
        }
    }
}
