import PokeSQLite

/// One row of a declared table (``DeviceSchema/Table``), every declared column selected
/// and read back by name: how the reader fills a model's plain fields, so that a column
/// added to the declaration reaches the model through the model's own field and nothing
/// else (<doc:PokedexReader/DeviceDatabase#Adding-a-column>).
///
/// A name the table does not declare stops at its first read, naming the table and the
/// column: a model that reads a column the declaration lacks fails on every detail read,
/// not silently.
struct DeclaredRow {
    /// A declared table's query and column positions, made once per table.
    struct Query: Sendable {
        let table: DeviceSchema.Table
        /// `SELECT <declared columns> FROM <table> WHERE <first key column> = ?`: the same
        /// text on every call, so the connection's prepared statement is reused.
        let sql: String
        fileprivate let positions: [String: Int32]

        init(_ table: DeviceSchema.Table) {
            self.table = table
            sql = "SELECT \(table.columnList) FROM \(table.quotedName) WHERE \(table.entityColumn) = ?"
            positions = Dictionary(uniqueKeysWithValues: table.columns.enumerated().map { ($1, Int32($0)) })
        }

        /// The row whose first key column is `key`, or nil.
        func row(_ key: Int, in database: Database) throws -> DeclaredRow? {
            try database.row(sql, [.integer(Int64(key))]) { row in
                DeclaredRow(query: self, values: (0..<Int32(table.columns.count)).map { column in
                    switch row.storageClass(column) {
                    case .integer: .integer(Int64(row.int(column)))
                    case .text: .text(row.text(column))
                    default: .null
                    }
                })
            }
        }
    }

    let query: Query
    let values: [SQLValue]

    private func value(_ column: String) -> SQLValue {
        guard let position = query.positions[column] else {
            preconditionFailure("\(query.table.name) declares no column \(column) (\(query.table.columns.joined(separator: ", ")))")
        }
        return values[Int(position)]
    }

    /// The integer in `column`; nil for NULL (or another type, which the digest check rules out).
    func optionalInt(_ column: String) -> Int? {
        if case .integer(let number) = value(column) { return Int(number) }
        return nil
    }

    /// The integer in `column`, 0 for NULL.
    func int(_ column: String) -> Int { optionalInt(column) ?? 0 }

    /// A 0/1 column as a Bool.
    func bool(_ column: String) -> Bool { int(column) != 0 }

    /// The text in `column`; nil for NULL.
    func optionalText(_ column: String) -> String? {
        if case .text(let text) = value(column) { return text }
        return nil
    }

    /// The text in `column`, "" for NULL.
    func text(_ column: String) -> String { optionalText(column) ?? "" }
}
