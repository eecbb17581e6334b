import Foundation
import PokedexReader
import Testing

/// A device file that is not what the schema declares: a column dropped, or a value of
/// another storage class (TEXT, REAL, NULL, a blob) where the reader needs an integer or
/// text. Each is one clear error naming the table, the column (and the row), from the
/// library and from `show`, `search` and the list, and exit 65 from the CLI; never a
/// column's name read as its value, nor a 0 in its place.
@Suite("hostile device files")
struct HostileDeviceTests {
    /// A copy of the sample's installed database in `folder/current`, changed by `sql`
    /// through the real sqlite3 shell.
    @discardableResult
    static func device(in folder: URL, _ sql: String) async throws -> URL {
        let source = try await SampleBundles.device(sprites: "default").appendingPathComponent("current/pokedex.sqlite")
        let current = folder.appendingPathComponent("current", isDirectory: true)
        try FileManager.default.createDirectory(at: current, withIntermediateDirectories: true)
        let database = current.appendingPathComponent("pokedex.sqlite")
        try FileManager.default.copyItem(at: source, to: database)
        try await runTool("sqlite3", [database.path, sql])
        return database
    }

    /// What `show ARGUMENTS` or `search ARGUMENTS` does with the device at `folder`.
    static func cli(_ arguments: [String], device folder: URL, scratch: URL) async throws -> PokesyncCLI.Result {
        try await PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            .run(arguments + ["--bundle", folder.path, "--json"], addMirror: false)
    }

    @Test("a dropped column fails the open, naming it", arguments: [("species", "color"), ("species", "habitat"),
                                                                  ("pokemon", "weight"), ("species", "capture_rate")])
    func droppedColumn(table: String, column: String) async throws {
        try await withTemporaryDirectory { folder in
            let device = folder.appendingPathComponent("device")
            let database = try await Self.device(in: device, "ALTER TABLE \(table) DROP COLUMN \(column);")
            #expect(throws: PokedexError.missingColumn(path: database.path, table: table, column: column)) {
                try Pokedex(folder: device)
            }
            for command in [["show", "pikachu"], ["search", "pikachu"]] {
                let result = try await Self.cli(command, device: device, scratch: folder)
                #expect(result.status == 65, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("has no column \(table).\(column)"), "\(result.stderr)")
                #expect(result.stdout.isEmpty, "nothing printed: \(result.stdout)")
            }
        }
    }

    @Test("a dropped table fails the open, naming it")
    func droppedTable() async throws {
        try await withTemporaryDirectory { folder in
            let database = try await Self.device(in: folder, "DROP TABLE pokemon_stat;")
            #expect(throws: PokedexError.missingTable(path: database.path, table: "pokemon_stat")) { try Pokedex(folder: folder) }
        }
    }

    /// Pikachu's detail with one value of the wrong class: the error names the table, the
    /// column, the row and what it holds.
    @Test("a value of another class where the model needs an integer", arguments: [
        ("UPDATE pokemon SET weight = 'heavy' WHERE id = 25", "pokemon", "weight", "id 25", "holds the text \"heavy\" where the reader needs an integer"),
        ("UPDATE pokemon SET weight = 4.5 WHERE id = 25", "pokemon", "weight", "id 25", "holds 4.5 where the reader needs an integer"),
        ("UPDATE pokemon SET height = NULL WHERE id = 25", "pokemon", "height", "id 25", "holds NULL where the reader needs an integer"),
        ("UPDATE species SET capture_rate = 'x' WHERE id = 25", "species", "capture_rate", "id 25",
         "holds the text \"x\" where the reader needs an integer or NULL"),
        ("UPDATE pokemon_stat SET base_stat = 100.5 WHERE pokemon_id = 25 AND stat = 'hp'", "pokemon_stat", "base_stat",
         "pokemon_id 25", "holds 100.5 where the reader needs an integer"),
    ])
    func wrongClassInDetail(sql: String, table: String, column: String, row: String, reason: String) async throws {
        try await withTemporaryDirectory { folder in
            let device = folder.appendingPathComponent("device")
            let database = try await Self.device(in: device, sql + ";")
            let pokedex = try Pokedex(folder: device, languages: ["en"])
            let expected = PokedexError.badValue(path: database.path, table: table, column: column, row: row, reason: reason)
            #expect(throws: expected) { try pokedex.pokemon(id: 25) }
            #expect(try pokedex.pokemon(id: 643) != nil, "another pokemon still reads")
            let result = try await Self.cli(["show", "pikachu"], device: device, scratch: folder)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("\(table) row \(row): column \(column) \(reason)"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    /// The list and search read `pokemon.name` as text and `pokemon_type.pokemon_id` as an
    /// integer: another class there fails them too.
    @Test("a value of another class in what the list and search read")
    func wrongClassInListAndSearch() async throws {
        try await withTemporaryDirectory { folder in
            let device = folder.appendingPathComponent("device")
            let database = try await Self.device(in: device, "UPDATE pokemon SET name = x'70696b61' WHERE id = 25;")
            let pokedex = try Pokedex(folder: device, languages: ["en"])
            let expected = PokedexError.badValue(path: database.path, table: "pokemon", column: "name", row: "id 25",
                                                 reason: "holds a blob where the reader needs text")
            #expect(throws: expected) { try pokedex.list(offset: 0, limit: 5) }
            #expect(throws: expected) { try pokedex.search("char") }
            #expect(try pokedex.list(offset: 5, limit: 5).count == 5, "a page without pikachu still reads")
            let result = try await Self.cli(["search", "char"], device: device, scratch: folder)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("pokemon row id 25: column name holds a blob"), "\(result.stderr)")

            let typed = folder.appendingPathComponent("typed")
            try await Self.device(in: typed, "UPDATE pokemon_type SET pokemon_id = 25.5 WHERE pokemon_id = 25;")
            let search = try await Self.cli(["search", "char"], device: typed, scratch: folder)
            #expect(search.status == 65, "\(search.stderr)")
            #expect(search.stderr.contains("pokemon_type row pokemon_id 25.5: column pokemon_id holds 25.5 where the reader needs an integer"),
                    "\(search.stderr)")
            #expect(throws: PokedexError.self) { try Pokedex(folder: typed).search("char") }
        }
    }
}
