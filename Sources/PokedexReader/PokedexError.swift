import PokeSQLite

/// Why a ``Pokedex`` could not open or read its database. Every case names the file.
///
/// A pokemon that is not there is not an error: lookups return `nil`.
public enum PokedexError: Error, CustomStringConvertible, Equatable {
    /// No database file at `path` (a device folder that was never installed, say).
    case missingDatabase(path: String)
    /// The file exists but SQLite could not open it.
    case cannotOpen(path: String, reason: String)
    /// The file opened but is not a Pokedex database (no `meta.schema_version`, or the
    /// file is not SQLite at all).
    case notAPokedex(path: String, reason: String)
    /// The database was written for a newer major schema version than this reader knows:
    /// the app keeps its data and needs an update to read this one.
    case newerSchema(path: String, found: String, supported: Int)
    /// A query failed (a damaged file).
    case unreadable(path: String, reason: String)
    /// The file lacks a table the schema declares (checked once, when the `Pokedex` opens).
    case missingTable(path: String, table: String)
    /// The file lacks a column the schema declares (checked once, when the `Pokedex` opens).
    case missingColumn(path: String, table: String, column: String)
    /// A value the reader cannot take: NULL where a value is needed, or another storage
    /// class than the column's declared type (text or a real where an integer is
    /// declared). `row` is the row's id column and value (`id 151`); `reason` says what
    /// the column holds and what the reader needs.
    case badValue(path: String, table: String, column: String, row: String, reason: String)

    /// The file the error is about.
    public var path: String {
        switch self {
        case .missingDatabase(let path), .cannotOpen(let path, _), .notAPokedex(let path, _),
             .newerSchema(let path, _, _), .unreadable(let path, _), .missingTable(let path, _),
             .missingColumn(let path, _, _), .badValue(let path, _, _, _, _):
            return path
        }
    }

    /// One line naming the file and the cause.
    public var description: String {
        switch self {
        case .missingDatabase(let path):
            return "no Pokedex database at \(path) (is the folder installed?)"
        case .cannotOpen(let path, let reason):
            return "cannot open the Pokedex database \(path): \(reason)"
        case .notAPokedex(let path, let reason):
            return "\(path) is not a Pokedex database: \(reason)"
        case .newerSchema(let path, let found, let supported):
            return "\(path) has schema version \(found), newer than this reader knows (\(supported)): update the app"
        case .unreadable(let path, let reason):
            return "cannot read the Pokedex database \(path): \(reason)"
        case .missingTable(let path, let table):
            return "the Pokedex database \(path) has no table \(table), which its schema declares"
        case .missingColumn(let path, let table, let column):
            return "the Pokedex database \(path) has no column \(table).\(column), which its schema declares"
        case .badValue(let path, let table, let column, let row, let reason):
            return "cannot read the Pokedex database \(path): \(table) row \(row): column \(column) \(reason)"
        }
    }

    /// Maps a value the reader cannot take to the case that names `path`.
    static func reading(_ error: ReadError, path: String) -> PokedexError {
        .badValue(path: path, table: error.table, column: error.column, row: error.row, reason: error.problem)
    }

    /// Maps an SQLite failure during a query to the case that names `path`.
    static func reading(_ error: DatabaseError, path: String) -> PokedexError {
        if error.isCorruption { return .notAPokedex(path: path, reason: error.message) }
        var reason = error.message
        if let sql = error.sql {
            reason += " - while executing `" + sql.split(whereSeparator: \.isWhitespace).joined(separator: " ") + "`"
        }
        return .unreadable(path: path, reason: reason)
    }
}
