import CSQLite

/// A failed SQLite call: the extended result code, SQLite's message, and the SQL
/// that was running, printed as
/// `SQLite error 19: UNIQUE constraint failed: versions.number - while executing `INSERT ...``.
public struct DatabaseError: Error, CustomStringConvertible, Equatable {
    /// The extended result code (`sqlite3_extended_errcode`).
    public var extendedCode: Int32
    public var message: String
    public var sql: String?
    /// The file the connection belongs to, so an error can name it.
    public var path: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil, path: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// The primary result code (the low byte of the extended one).
    public var primaryCode: Int32 { extendedCode & 0xff }

    /// The file is not a database or its pages are damaged.
    public var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    /// The statement was stopped by ``Database/interrupt()``.
    public var isInterrupted: Bool { primaryCode == SQLITE_INTERRUPT }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let path { text += " (\(path))" }
        if let sql {
            // One line, whatever the literal looked like: errors print as a single line.
            let shortened = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            text += " - while executing `\(shortened.count > 200 ? shortened.prefix(200) + "..." : shortened)`"
        }
        return text
    }
}
