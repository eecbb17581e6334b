import Foundation
import PokeSQLite
@testable import PokedexReader
import Testing

/// Typed reads by column name on a real file made by the declaration's own DDL: a value
/// of the declared class reads, anything else (NULL where a value is needed, text or a
/// real where an integer is) throws naming the table, the column and the row's id.
@Suite struct ReadRowTests {
    static func withDatabase(_ body: (Database) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("read-row-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try Database.readerConnection(path: folder.appendingPathComponent("pokedex.sqlite").path, mode: .readWrite)
        try DeviceSchema.create(in: database, tables: DeviceSchema.tables)
        try database.run("""
            INSERT INTO species(id, name, is_baby, is_legendary, is_mythical, color, capture_rate, gender_rate)
            VALUES (25, 'pikachu', 0, 0, 0, 'yellow', 190, 4), (172, 'pichu', 1, 0, 0, NULL, 'many', 4.5),
                   (151, 'mew', 2, 0, 1, x'07', NULL, NULL)
            """)
        try body(database)
    }

    static let query = ReadQuery(.species, ["name", "color", "capture_rate", "gender_rate", "is_baby"], "WHERE id = ?")

    func read<T>(_ id: Int, _ database: Database, _ body: (ReadRow) throws -> T) throws -> T? {
        try database.record(Self.query, [.integer(Int64(id))], body)
    }

    @Test func valuesOfTheDeclaredClassRead() throws {
        try Self.withDatabase { database in
            let pikachu = try read(25, database) { row in
                (try row.text("name"), try row.optionalText("color"), try row.int("capture_rate"), try row.bool("is_baby"))
            }
            #expect(pikachu?.0 == "pikachu" && pikachu?.1 == "yellow" && pikachu?.2 == 190 && pikachu?.3 == false)
            #expect(try read(172, database) { try $0.optionalText("color") } == .some(nil))
            #expect(try read(151, database) { try $0.optionalInt("capture_rate") } == .some(nil))
            #expect(try read(1, database) { try $0.text("name") } == nil)
        }
    }

    @Test func anyOtherClassThrowsNamingTableColumnAndRow() throws {
        try Self.withDatabase { database in
            func failure(_ id: Int, _ body: (ReadRow) throws -> Void) -> String? {
                do {
                    try read(id, database, body)
                    return nil
                } catch {
                    return (error as? ReadError)?.description
                }
            }
            #expect(failure(172) { _ = try $0.int("capture_rate") }
                    == "species row id 172: column capture_rate holds the text \"many\" where the reader needs an integer")
            #expect(failure(172) { _ = try $0.optionalInt("gender_rate") }
                    == "species row id 172: column gender_rate holds 4.5 where the reader needs an integer or NULL")
            #expect(failure(151) { _ = try $0.int("capture_rate") }
                    == "species row id 151: column capture_rate holds NULL where the reader needs an integer")
            #expect(failure(172) { _ = try $0.text("color") }
                    == "species row id 172: column color holds NULL where the reader needs text")
            #expect(failure(151) { _ = try $0.optionalText("color") }
                    == "species row id 151: column color holds a blob where the reader needs text or NULL")
            #expect(failure(151) { _ = try $0.bool("is_baby") }
                    == "species row id 151: column is_baby holds 2 where the reader needs 0 or 1")
            #expect(failure(25) { _ = try $0.text("habitat") }
                    == "species row id 25: column habitat is not selected by the reader's query")
        }
    }

    /// SQLite would read `"colour"` as the string 'colour' on a connection that allows
    /// double-quoted string literals; a reader connection says there is no such column.
    @Test func aQuotedNameThatIsNoColumnIsAnError() throws {
        try Self.withDatabase { database in
            #expect(throws: DatabaseError.self) { try database.rows(#"SELECT "id", "colour" FROM species"#) { $0.text(1) } }
            #expect(throws: DatabaseError.self) { try database.execute(#"CREATE INDEX i ON species("colour")"#) }
        }
    }

    /// A list of values (`(?*)`) is one JSON array bound to one mark, so a query has one
    /// statement whatever the list's length (a connection keeps each statement it
    /// prepares), and a text in the list reads as itself, quotes and backslashes included.
    @Test func listsOfAnyLengthAreOneStatementAndReadTheirValues() throws {
        try Self.withDatabase { database in
            try database.run(#"INSERT INTO species(id, name, is_baby, is_legendary, is_mythical) VALUES (7, 'a "quoted" \ name', 0, 0, 0)"#)
            let byID = ReadQuery(.species, ["name"], "WHERE id IN (?*) AND name != ? ORDER BY id")
            let short = byID.withLists([25, 151, "none"], counts: [2])
            let long = byID.withLists((1...300).map { .integer(Int64($0)) } + ["none"], counts: [300])
            #expect(short.sql == long.sql && short.arguments.count == 2 && long.arguments.count == 2)
            #expect(short.arguments.first == .text("[25,151]"))
            func names(_ arguments: [SQLValue], _ counts: [Int]) throws -> [String] {
                try database.records(byID, arguments, lists: counts) { try $0.text("name") }
            }
            #expect(try names([25, 151, 999, "none"], [3]) == ["pikachu", "mew"])
            #expect(try names((1...300).map { .integer(Int64($0)) } + ["pichu"], [300]) == ["a \"quoted\" \\ name", "pikachu", "mew"])
            #expect(try names(["none"], [0]).isEmpty)
            let byName = ReadQuery(.species, ["name"], "WHERE name IN (?*) ORDER BY id")
            let texts: [SQLValue] = ["pichu", "a \"quoted\" \\ name", "line\nbreak"]
            #expect(try database.records(byName, texts, lists: [3]) { try $0.text("name") } == ["a \"quoted\" \\ name", "pichu"])
        }
    }
}
