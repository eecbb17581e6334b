import Foundation
import PokedexReader
import PokeSQLite
import Testing
@testable import PokeSyncCore

/// Plain columns added to a view table's declaration (a copy of it) are stored by the DDL
/// made from it, with no SQL written for them: in the view's link table, given back by
/// the view, written by its `INSTEAD OF INSERT` trigger from a delta's plain `INSERT`, and
/// gone with the row its `INSTEAD OF DELETE` trigger removes by the delta's plain `DELETE`.
@Suite("Device database: plain columns of view tables")
struct ViewPlainColumnTests {
    static let added: [DeviceSchema.Column] = [.integer("scratch_count"), .text("scratch_note")]
    static let views = DeviceSchema.tables.filter { if case .view = $0.storage { true } else { false } }

    @Test func everyViewTableHasADesign() {
        #expect(Self.views.map(\.name).sorted()
                == ["ability_text", "move_text", "pokemon_move", "pokemon_sprite", "species_flavor_text"])
        #expect(Self.views.allSatisfy { $0.plainColumns.isEmpty }, "the shipped views have no plain columns yet")
    }

    @Test(arguments: views.map(\.name))
    func aRowWithPlainColumnsGoesInAndOutThroughTheView(_ name: String) throws {
        try withTemporaryDirectory { folder in
            let table = Self.added.reduce(Self.views.first { $0.name == name }!) { $0.adding($1) }
            #expect(table.plainColumns.map(\.name) == Self.added.map(\.name))
            let database = try Database(path: folder.appendingPathComponent("scratch.sqlite").path)
            try DeviceSchema.create(in: database, tables: DeviceSchema.tables.map { $0.name == name ? table : $0 })

            // The link table holds the plain columns as declared.
            let holders = try database.rows("""
                SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c
                WHERE m.type = 'table' AND c.name = 'scratch_note' AND c.type = 'TEXT'
                """) { $0.text(0) }
            #expect(holders.count == 1 && DeviceSchema.builderTables.contains(holders[0]), "\(holders)")
            let link = try #require(holders.first)

            // Two rows by the delta's plain INSERT, every column given (the plain ones too).
            let rows = [1, 2].map { Self.row($0, of: table) }
            let marks = table.columns.map { _ in "?" }.joined(separator: ", ")
            for row in rows {
                try database.run("INSERT INTO \(table.quotedName)(\(table.columnList)) VALUES (\(marks))", row)
            }
            #expect(try Self.read(table, database) == rows.map(Self.quoted))
            #expect(try database.integer("SELECT count(*) FROM \(link) WHERE scratch_count IS NOT NULL") == 2)

            // The delta's plain DELETE by entity removes the first row, plain columns and all.
            try database.run("DELETE FROM \(table.quotedName) WHERE \(table.entityColumn) = ?", [rows[0][0]])
            #expect(try Self.read(table, database) == [Self.quoted(rows[1])])
            #expect(try database.integer("SELECT count(*) FROM \(link)") == 1)
        }
    }

    /// A row of `pokemon_move` with a plain column, as the exporter's row type would have it.
    struct MoveWithLevel: DeviceTableRow {
        var pokemonID: Int
        var move: String
        var learnLevel: Int?
    }

    /// The exporter writes a view's link table itself (`insertShared`), each plain column
    /// from the row's property of its name, so that column needs no SQL there either.
    @Test func theWriterFillsAViewsPlainColumnsFromTheRow() throws {
        try withTemporaryDirectory { folder in
            let table = DeviceSchema.Table.pokemonMove.adding(.integer("learn_level"))
            let database = try Database(path: folder.appendingPathComponent("scratch.sqlite").path)
            try DeviceSchema.create(in: database, tables: DeviceSchema.tables.map { $0.name == table.name ? table : $0 })
            try database.execute("INSERT INTO move_code(id, name) VALUES (1, 'double-kick'), (2, 'slam')")
            let insert = try ViewLinkInsert(table, into: "pokemon_move_link", designed: ["pokemon_id", "move_id"], database)
            try insert.run([25, 1], MoveWithLevel(pokemonID: 25, move: "double-kick", learnLevel: 9))
            try insert.run([25, 2], MoveWithLevel(pokemonID: 25, move: "slam", learnLevel: nil))
            #expect(try Self.read(table, database) == ["25|'double-kick'|9", "25|'slam'|NULL"])
        }
    }

    /// Row `number` of `table`: a distinct value for every column (the entity column
    /// included, so the rows belong to different entities).
    static func row(_ number: Int, of table: DeviceSchema.Table) -> [SQLValue] {
        table.declaredColumns.enumerated().map { index, column in
            column.type == .integer ? SQLValue(number * 100 + index) : .text("row \(number) \(column.name)")
        }
    }

    /// `row` as `read` gives it: SQLite's `quote()` of each value, joined by `|`.
    static func quoted(_ row: [SQLValue]) -> String {
        row.map { value in
            switch value {
            case let .integer(number): String(number)
            case let .text(text): "'\(text)'"
            default: "NULL"
            }
        }.joined(separator: "|")
    }

    /// Every row of `table`'s view, in key order, every declared column `quote()`d.
    static func read(_ table: DeviceSchema.Table, _ database: Database) throws -> [String] {
        let values = table.columns.map { "quote(\(DeviceSchema.quoted($0)))" }.joined(separator: " || '|' || ")
        return try database.rows("SELECT \(values) FROM \(table.quotedName) ORDER BY \(table.keyList)") { $0.text(0) }
    }
}
