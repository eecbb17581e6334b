import Foundation
import PokeSQLite
@testable import PokedexReader
import Testing

/// The reader's queries on a scratch copy of the declaration: a column added to a table
/// (`species.hatch_counter`, `pokemon_stat.rank`, and `pokemon_move.learn_level` on a
/// view) reaches a model that has a property of its name, with no SQL written for it,
/// on a real file made by the declaration's own DDL.
@Suite struct DeclaredRowTests {
    static let species = DeviceSchema.Table.species.adding(.integer("hatch_counter"))
    static let stats = DeviceSchema.Table.pokemonStat.adding(.integer("rank"))
    static let moves = DeviceSchema.Table.pokemonMove.adding(.integer("learn_level"))

    /// What an app's model of a species with the new column would be.
    struct Species: Decodable {
        let id: Int
        let name: String
        let isBaby: Bool
        let color: String?
        let hatchCounter: Int?
        let localizedName: String?
    }

    /// A stat with the new column; its `name` is the column `stat`.
    struct Stat: Decodable {
        let name: String
        let baseStat: Int
        let rank: Int?
        let localizedName: String?
        let note: String
    }

    struct LearntMove: Decodable {
        let move: String
        let learnLevel: Int?
    }

    static func withDatabase(_ body: (Database) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("declared-row-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try Database(path: folder.appendingPathComponent("pokedex.sqlite").path)
        let tables = DeviceSchema.tables.map { table in
            [Self.species, Self.stats, Self.moves].first { $0.name == table.name } ?? table
        }
        try DeviceSchema.create(in: database, tables: tables)
        try database.run("""
            INSERT INTO species(id, name, is_baby, is_legendary, is_mythical, color, hatch_counter)
            VALUES (25, 'pikachu', 0, 0, 0, 'yellow', 10), (172, 'pichu', 1, 0, 0, NULL, NULL)
            """)
        try database.run("""
            INSERT INTO pokemon_stat(pokemon_id, stat, base_stat, effort, rank)
            VALUES (25, 'hp', 35, 0, 3), (25, 'speed', 90, 2, NULL), (25, 'attack', 55, 0, 1)
            """)
        // Through the view's trigger, as a delta writes it.
        try database.run("INSERT INTO pokemon_move(pokemon_id, move, learn_level) VALUES (25, 'thunder-shock', 1), (25, 'surf', NULL)")
        try body(database)
    }

    @Test func aNewColumnReachesTheModelPropertyOfItsName() throws {
        try Self.withDatabase { database in
            let query = DeclaredRow.Query(Self.species)
            let pikachu = try #require(try query.row(.integer(25), in: database))
                .model(Species.self, parts: ["localizedName": "Pikachu"])
            #expect(pikachu.hatchCounter == 10 && pikachu.color == "yellow" && pikachu.name == "pikachu" && !pikachu.isBaby)
            #expect(pikachu.localizedName == "Pikachu")
            // The second read follows the first one's plan: NULLs and another part value.
            let pichu = try #require(try query.row(.integer(172), in: database))
                .model(Species.self, parts: ["localizedName": String?.none as Any])
            #expect(pichu.hatchCounter == nil && pichu.color == nil && pichu.isBaby && pichu.localizedName == nil)
            #expect(try query.row(.integer(1), in: database) == nil)
        }
    }

    @Test func rowsOfAListFillTheirModelsInOrderWhateverOrderTheirPartsCome() throws {
        try Self.withDatabase { database in
            let rows = try DeclaredRow.Query(Self.stats, orderedBy: ["base_stat DESC"]).rows(.integer(25), in: database)
            var turn = 0
            let stats = rows.models(Stat.self, columns: ["name": "stat"]) { row -> KeyValuePairs<String, Any> in
                turn += 1
                let name = row.optionalText("stat") ?? ""
                // The parts in another order on every other row: the plan must not follow stale positions.
                return turn.isMultiple(of: 2) ? ["note": "n-\(name)", "localizedName": name.uppercased()]
                                             : ["localizedName": name.uppercased(), "note": "n-\(name)"]
            }
            #expect(stats.map(\.name) == ["speed", "attack", "hp"])
            #expect(stats.map(\.rank) == [nil, 1, 3])
            #expect(stats.map(\.baseStat) == [90, 55, 35])
            #expect(stats.map(\.localizedName) == ["SPEED", "ATTACK", "HP"])
            #expect(stats.map(\.note) == ["n-speed", "n-attack", "n-hp"])
        }
    }

    @Test func aPlainColumnOfAViewReachesTheModelToo() throws {
        try Self.withDatabase { database in
            let moves = try DeclaredRow.Query(Self.moves, orderedBy: ["move"]).rows(.integer(25), in: database)
                .models(LearntMove.self) { _ in [:] }
            #expect(moves.map(\.move) == ["surf", "thunder-shock"])
            #expect(moves.map(\.learnLevel) == [nil, 1])
        }
    }

    @Test func aTableReachedThroughALinkGivesARowOfNullsForANameItLacks() throws {
        try Self.withDatabase { database in
            try database.run("INSERT INTO move(id, name, type_id, damage_class, power, pp) VALUES (84, 'thunder-shock', 13, 'special', 40, 30)")
            let query = DeclaredRow.Query(.move, through: Self.moves, linking: ("move", "name"), by: "pokemon_id", orderedBy: ["move"])
            let rows = try query.rows(.integer(25), in: database)
            #expect(rows.map(\.linkValue) == ["surf", "thunder-shock"])
            #expect(rows.map { $0.optionalInt("power") } == [nil, 40])
            #expect(rows.map { $0.optionalText("damage_class") } == [nil, "special"])
        }
    }

    @Test func everySpellingOfAColumnTheNameRuleGivesFindsIt() throws {
        let query = DeclaredRow.Query(.evolutionStep)
        let row = DeclaredRow(query: query, values: query.table.columns.indices.map { .integer(Int64($0)) })
        for property in ["toSpeciesID", "toSpeciesId", "detailsJSON", "detailsJson", "detailsJSon", "minLevel"] {
            let column = DeviceSchema.columnName(ofProperty: property)
            #expect(row.position(ofProperty: property) == query.table.columns.firstIndex(of: column).map(Int32.init), "\(property)")
        }
        #expect(row.position(ofProperty: "colour") == nil)
    }
}
