import CSQLite
import Foundation

/// One SQLite connection with a cache of prepared statements.
///
/// Not `Sendable`: SQLite connections must not be used from two threads at once.
/// `Store` owns one behind a `Locked` value and hands out only `Sendable` values.
public final class Database {
    public enum Mode: Sendable {
        case readWrite, readOnly
        /// Read-only, and promised never to change while open (`immutable=1`): SQLite
        /// takes no locks and needs no `-wal` or `-shm`, so it opens on read-only media.
        case immutable
    }

    let handle: OpaquePointer
    public let path: String
    private var statementCache: [String: Statement] = [:]
    /// Kept alive while SQLite's progress handler points at it (``limitWork(steps:stop:)``).
    var workBudget: WorkBudget?

    /// Opens (and for `.readWrite`, creates) the database at `path`.
    /// - Throws: `DatabaseError` when the file cannot be opened; a file that is not a
    ///   database is detected by the first query (`isCorruption`).
    public init(path: String, mode: Mode = .readWrite) throws(DatabaseError) {
        var connection: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX
        var name = path
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = Self.immutableURI(path)
        }
        let code = sqlite3_open_v2(name, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(connection)
            throw DatabaseError(extendedCode: code, message: message, path: path)
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
        // Another process (status while a sync runs) may hold a write lock briefly.
        sqlite3_busy_timeout(connection, 5_000)
    }

    /// `file:` URI for `path` with `immutable=1`; `%`, `?` and `#` escaped so any file name works.
    static func immutableURI(_ path: String) -> String {
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "file:\(escaped)?immutable=1"
    }

    deinit {
        statementCache.removeAll()
        sqlite3_progress_handler(handle, 0, nil, nil)
        sqlite3_close_v2(handle)
    }

    func error(code: Int32, sql: String?) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        return DatabaseError(extendedCode: extended != 0 ? extended : code,
                             message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
    }

    /// Runs one or more statements with no arguments (schema, pragmas).
    public func execute(_ sql: String) throws(DatabaseError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw DatabaseError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql, path: path)
        }
    }

    /// The prepared statement for `sql`, prepared once and reused.
    public func statement(_ sql: String) throws(DatabaseError) -> Statement {
        if let cached = statementCache[sql] { return cached }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows.
    public func run(_ sql: String, _ arguments: [SQLValue] = []) throws(DatabaseError) {
        try statement(sql).run(arguments)
    }

    /// Runs a query and maps every row.
    public func rows<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (Row) throws -> T) throws -> [T] {
        try statement(sql).rows(arguments, map)
    }

    /// The first row of a query, mapped, or nil when there is none.
    public func row<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (Row) throws -> T) throws -> T? {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { sqlite3_reset(statement.handle) }
        return try statement.step() ? map(Row(statement: statement)) : nil
    }

    /// A single integer (COUNT, MAX ...); nil when there is no row or it is NULL.
    public func integer(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int? {
        try row(sql, arguments) { $0.optionalInt(0) } ?? nil
    }

    /// Makes the statement running on this connection stop soon with `SQLITE_INTERRUPT`
    /// (``DatabaseError/isInterrupted``); a no-op when nothing runs.
    ///
    /// The one method that may be called from another thread while the connection is in
    /// use (`sqlite3_interrupt` is thread-safe): a reader cancels a long query this way.
    /// The caller must make sure the connection is not closed meanwhile (hold a reference)
    /// and that it is still used by the read it means to cancel.
    public func interrupt() {
        sqlite3_interrupt(handle)
    }

    /// Makes a double-quoted name that names no column an error ("no such column"), in
    /// queries and in schema statements alike, instead of SQLite's legacy reading of it
    /// as a string literal (`SELECT "color" FROM species` on a file without `color`
    /// would give the word "color" for every row). Every connection that reads a file
    /// written elsewhere turns this on: a missing column then fails, never reads as its name.
    /// - Throws: `DatabaseError` when SQLite refuses the setting (older than 3.29).
    public func refuseDoubleQuotedStrings() throws(DatabaseError) {
        for option in [SQLITE_DBCONFIG_DQS_DML, SQLITE_DBCONFIG_DQS_DDL] {
            var now: Int32 = -1
            let code = pokesync_sqlite3_db_config_int(handle, option, 0, &now)
            guard code == SQLITE_OK, now == 0 else {
                throw DatabaseError(extendedCode: code == SQLITE_OK ? SQLITE_MISUSE : code,
                                    message: "cannot turn off double-quoted string literals", path: path)
            }
        }
    }

    /// Sets `PRAGMA cache_size` to about `kilobytes` of page cache (SQLite's default is
    /// 2,000 kB per connection); a pool of readers keeps each connection's small.
    public func setPageCache(kilobytes: Int) throws(DatabaseError) {
        try execute("PRAGMA cache_size = -\(max(kilobytes, 0))")
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in a transaction: commits when it returns, rolls back and rethrows when it throws.
    /// `IMMEDIATE` takes the write lock up front, so a commit never fails on a lock upgrade.
    public func transaction<T>(_ body: (Database) throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body(self)
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}
