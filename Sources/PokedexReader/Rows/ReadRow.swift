import Foundation
import PokeSQLite

/// One row of a reader query, read by column name as the model needs it: the shape of
/// GRDB's `Row` in `FetchableRecord.init(row:)`. Each model has an `init(row:...)` that
/// reads its columns with these, and takes what is not a column as typed arguments.
///
/// A read checks the value's storage class (`sqlite3_column_type`): a NULL where a value
/// is needed, or a value of another class (text or a real where an integer is declared),
/// throws ``ReadError`` naming the table, the column and the row's id. Nothing is read
/// as 0, "" or false, and nothing is converted.
struct ReadRow {
    let row: Row
    let query: ReadQuery
    /// The statement's result column names, resolved once per statement.
    private let names: [String]

    /// `names`: the statement's ``PokeSQLite/Statement/columnNames``, read once per statement.
    init(_ row: Row, of query: ReadQuery, names: [String]) {
        self.row = row
        self.query = query
        self.names = names
    }

    /// The integer in `column`.
    func int(_ column: String) throws(ReadError) -> Int {
        let index = try position(column)
        guard row.storageClass(index) == .integer else { throw failure(column, index, expected: "an integer") }
        return row.int(index)
    }

    /// The integer in `column`, nil for NULL.
    func optionalInt(_ column: String) throws(ReadError) -> Int? {
        let index = try position(column)
        switch row.storageClass(index) {
        case .null: return nil
        case .integer: return row.int(index)
        default: throw failure(column, index, expected: "an integer or NULL")
        }
    }

    /// The text in `column`.
    func text(_ column: String) throws(ReadError) -> String {
        let index = try position(column)
        guard row.storageClass(index) == .text else { throw failure(column, index, expected: "text") }
        return row.text(index)
    }

    /// The text in `column`, nil for NULL.
    func optionalText(_ column: String) throws(ReadError) -> String? {
        let index = try position(column)
        switch row.storageClass(index) {
        case .null: return nil
        case .text: return row.text(index)
        default: throw failure(column, index, expected: "text or NULL")
        }
    }

    /// Calls `body` with the UTF-8 bytes of the text in `column`, without making a String.
    func withUTF8<T>(_ column: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        let index = try position(column)
        guard row.storageClass(index) == .text else { throw failure(column, index, expected: "text") }
        return try row.withUTF8(index, body)
    }

    /// A flag: the integer 0 or 1 in `column`.
    func bool(_ column: String) throws(ReadError) -> Bool {
        let index = try position(column)
        guard row.storageClass(index) == .integer, (0...1).contains(row.int(index)) else {
            throw failure(column, index, expected: "0 or 1")
        }
        return row.int(index) == 1
    }

    /// A number: the real or integer in `column` (SQLite stores a whole REAL as an integer).
    func double(_ column: String) throws(ReadError) -> Double {
        let index = try position(column)
        switch row.storageClass(index) {
        case .real, .integer: return row.double(index)
        default: throw failure(column, index, expected: "a number")
        }
    }

    /// The position of `column` among the statement's result columns.
    private func position(_ column: String) throws(ReadError) -> Int32 {
        // A handful of columns, usually read in the order selected: a scan beats hashing.
        guard let index = names.firstIndex(of: column) else {
            throw ReadError(table: query.table.name, column: column, row: rowName, problem: "is not selected by the reader's query")
        }
        return Int32(index)
    }

    /// The row as a failure names it: `id 151`, `pokemon_id 25`, or the first column's value.
    private var rowName: String {
        let idColumn = query.table.columns[0]
        let index = names.firstIndex(of: idColumn) ?? 0
        return names.isEmpty ? "?" : "\(names[index]) \(Self.describe(row, Int32(index), quoted: false))"
    }

    /// A failure of `column` in this row: `problem` says what is wrong (`is not JSON`).
    func failure(_ column: String, problem: String) -> ReadError {
        ReadError(table: query.table.name, column: column, row: rowName, problem: problem)
    }

    private func failure(_ column: String, _ index: Int32, expected: String) -> ReadError {
        ReadError(table: query.table.name, column: column, row: rowName,
                  problem: "holds \(Self.describe(row, index, quoted: true)) where the reader needs \(expected)")
    }

    /// A value for a message: `NULL`, `4.5`, `"abc"` (at most 40 characters), `a blob`.
    private static func describe(_ row: Row, _ index: Int32, quoted: Bool) -> String {
        switch row.storageClass(index) {
        case .null: return "NULL"
        case .integer: return String(row.int(index))
        case .real: return String(row.double(index))
        case .blob: return "a blob"
        case .text:
            let text = row.text(index)
            let short = text.count > 40 ? text.prefix(40) + "..." : Substring(text)
            return quoted ? "the text \"\(short)\"" : String(short)
        }
    }
}

/// A value the reader cannot take: NULL where one is needed, another storage class
/// than the declared one, or a column the query does not select. ``Pokedex`` reports it
/// as ``PokedexError/badValue(path:table:column:row:reason:)``, naming its file.
struct ReadError: Error, Equatable, CustomStringConvertible {
    /// The table (or view) the row is from.
    let table: String
    let column: String
    /// The row's id column and value: `id 151`.
    let row: String
    /// `holds NULL where the reader needs an integer`.
    let problem: String

    var description: String { "\(table) row \(row): column \(column) \(problem)" }
}
