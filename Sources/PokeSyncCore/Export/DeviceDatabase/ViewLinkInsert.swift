import PokeSQLite
import PokedexReader

/// The writer's insert into a view table's link table (`insertShared`): the columns the
/// view's design stores there, which the writer works out itself (codes, text ids, URLs
/// not following their pattern), then the table's plain columns
/// (`DeviceSchema.Table.plainColumns`), taken from the row by name as any table's columns
/// are (`DeviceRowColumns`). So a plain column added to a view table's declaration is
/// written with no SQL changed here, as the view's DDL stores it with none.
struct ViewLinkInsert {
    private let statement: Statement
    private let plainCount: Int
    /// Nil when the table has no plain columns: a row is then not encoded at all (a table
    /// of moves has hundreds of thousands).
    private let columns: DeviceRowColumns?

    /// - Throws: `DatabaseError` when the statement cannot be prepared.
    init(_ table: DeviceSchema.Table, into link: String, designed: [String], _ database: Database) throws {
        let names = designed + table.plainColumns.map(\.name)
        statement = try database.statement("""
            INSERT INTO \(link)(\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))
            """)
        plainCount = table.plainColumns.count
        columns = plainCount == 0 ? nil : DeviceRowColumns(table)
    }

    /// Inserts `designed`, the values of the design's columns, and `row`'s plain columns.
    /// - Throws: `DatabaseError` when the row cannot be written.
    func run<Row: DeviceTableRow>(_ designed: [SQLValue], _ row: Row) throws {
        guard let columns else { return try statement.run(designed) }
        try statement.run(designed + columns.values(of: row).suffix(plainCount))
    }
}
