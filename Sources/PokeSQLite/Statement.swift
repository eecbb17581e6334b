import CSQLite
import Foundation

/// A value bound to, or read from, an SQL statement.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int) { self = .integer(Int64(value)) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }

    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}

// SQLITE_TRANSIENT is a macro Swift does not import: it tells SQLite to copy the bytes.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement. Owned by one `Database`, finalized in `deinit`; not `Sendable`
/// because the connection it belongs to is not.
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    public let sql: String

    init(database: Database, sql: String) throws(DatabaseError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw database.error(code: code, sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// The result columns' names, in order (`AS` names where given), read once per
    /// statement: what a reader looks a column up by.
    public private(set) lazy var columnNames: [String] = (0..<sqlite3_column_count(handle)).map { column in
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }

    /// Clears earlier bindings and binds `arguments` to the `?` parameters in order.
    public func bind(_ arguments: [SQLValue]) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, transientDestructor)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { buffer in
                    // A zero-length blob must still be a blob, not NULL: pass a valid pointer.
                    sqlite3_bind_blob64(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                        sqlite3_uint64(buffer.count), transientDestructor)
                }
            }
            guard code == SQLITE_OK else { throw database.error(code: code, sql: sql) }
        }
    }

    /// Steps once. Returns true while a row is available.
    /// - Throws: `DatabaseError` for any result other than a row or done.
    public func step() throws(DatabaseError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so that it can run again (bindings are kept).
    public func reset() { sqlite3_reset(handle) }

    /// Runs the statement to completion, ignoring rows.
    public func run(_ arguments: [SQLValue] = []) throws(DatabaseError) {
        try bind(arguments)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs the statement and maps each row.
    public func rows<T>(_ arguments: [SQLValue] = [], _ map: (Row) throws -> T) throws -> [T] {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        var result: [T] = []
        while try step() { result.append(try map(Row(statement: self))) }
        return result
    }
}

/// The current row of a stepping statement: valid only inside the mapping closure.
public struct Row {
    let statement: Statement
    /// The current row of `statement`, which must have just stepped to a row.
    public init(statement: Statement) { self.statement = statement }
    private var handle: OpaquePointer { statement.handle }

    /// The storage class of a column's value in this row.
    public enum StorageClass: Sendable { case null, integer, real, text, blob }

    public var columnCount: Int32 { sqlite3_column_count(handle) }
    public func storageClass(_ column: Int32) -> StorageClass {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    /// Calls `body` with the UTF-8 bytes of a text column, without copying them into a String.
    public func withUTF8<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let pointer = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }
    public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    public func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    public func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
    public func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
    public func optionalBlob(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : blob(column) }
}
