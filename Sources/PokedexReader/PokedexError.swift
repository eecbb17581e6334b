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
    /// A query failed (a damaged file, a table the schema requires is missing).
    case unreadable(path: String, reason: String)

    /// The file the error is about.
    public var path: String {
        switch self {
        case .missingDatabase(let path), .cannotOpen(let path, _), .notAPokedex(let path, _),
             .newerSchema(let path, _, _), .unreadable(let path, _):
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
        }
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
