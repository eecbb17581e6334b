import Foundation
@testable import PokeSyncCore
import PokedexReader
import Testing
@testable import pokesync

/// `pokesync show --language`, `show --json`'s `type_defense` and `search --json --language`
/// on a device installed from a real bundle of the 2026 sample; `show --json`'s columns
/// of `pokemon` and `species` against the stored rows, and against the models' properties.
@Suite("show and search in the device's language")
struct LocalizedCLITests {
    @Test func showInKoreanNamesTypesAbilitiesStatsAndChartsTheTypes() async throws {
        let device = try await SampleBundles.device(sprites: "default")
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let card = try await cli.run(["show", "pikachu", "--bundle", device.path, "--language", "ko"], addMirror: false)
            #expect(card.status == 0, "\(card.stderr)")
            for text in ["피카츄", "전기", "정전기", "스피드", "실드", "damage taken", "땅"] {
                #expect(card.stdout.contains(text), "\(text) in\n\(card.stdout)")
            }
            #expect(card.stdout.contains("2x    땅"))

            let json = try await cli.run(["show", "charizard-mega-x", "--bundle", device.path, "--json", "--language", "fr"],
                                   addMirror: false)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let defense = try #require(object["type_defense"] as? [String: Double])
            // Fire and dragon: ground, rock and dragon 2x; fire and grass 1/4x; nothing 0.
            #expect(defense.count == 18)
            #expect(defense["ground"] == 2 && defense["rock"] == 2 && defense["dragon"] == 2)
            #expect(defense["fire"] == 0.25 && defense["grass"] == 0.25 && defense["water"] == 1)
            #expect(object["localized_name"] as? String == "Dracaufeu")
            #expect((object["type_names"] as? [String: String])?["dragon"] == "Dragon")
            #expect((object["type_names"] as? [String: String])?["fire"] == "Feu")
            #expect(object["types"] as? [String] == ["fire", "dragon"])

            let search = try await cli.run(["search", "feu", "drache", "--bundle", device.path, "--json", "--language", "fr"],
                                     addMirror: false)
            let hits = try #require(try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [[String: Any]])
            #expect(hits.map { $0["id"] as? Int } == [643, 776, 1020, 10034])
            #expect(hits.last?["localized_name"] as? String == "Dracaufeu")
            #expect(hits.first?["name"] as? String == "reshiram")
        }
    }

    /// The top-level keys `show --json` has always had, whatever the columns.
    static let curatedKeys: Set<String> = [
        "id", "name", "species", "localized_name", "types", "type_names", "height", "weight", "stats", "stat_names",
        "abilities", "ability_names", "moves", "move_names", "sprites", "genus", "flavor_text", "evolution_chain",
        "type_defense", "species_facts",
    ]

    @Test func showJSONGivesEveryColumnTheModelsCarryAsStored() async throws {
        let device = try await SampleBundles.device(sprites: "default")
        let database = device.appendingPathComponent("current/pokedex.sqlite")
        let pokedex = try Pokedex(folder: device)
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            for query in ["pikachu", "charizard-mega-x"] {
                let shown = try await cli.run(["show", query, "--bundle", device.path, "--json"], addMirror: false)
                #expect(shown.status == 0, "\(shown.stderr)")
                let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(shown.stdout.utf8))
                let detail = try #require(try pokedex.pokemon(named: query, languages: ["en"]))
                let species = try #require(detail.species)

                // The keys expected, from the models' properties and the declaration.
                let pokemonColumns = Self.carried(by: detail, in: .pokemon)
                let speciesColumns = Self.carried(by: species, in: .species)
                #expect(pokemonColumns.keys.contains("base_experience") && pokemonColumns.keys.contains("is_default"))
                #expect(speciesColumns.keys.contains("is_legendary") && speciesColumns.keys.contains("capture_rate"))
                #expect(Set(object.keys) == Self.curatedKeys.union(pokemonColumns.keys), "\(object.keys.sorted())")
                guard case .object(let facts)? = object["species_facts"] else {
                    Issue.record("species_facts is no object: \(shown.stdout)")
                    continue
                }
                #expect(Set(facts.map(\.0)) == Set(speciesColumns.keys), "\(facts.map(\.0).sorted())")

                // The values, from the rows as the real sqlite3 reads them.
                let pokemonRow = try await Self.storedRow(of: .pokemon, id: detail.id, in: database)
                for (column, isFlag) in pokemonColumns {
                    #expect(object[column] == Self.expected(pokemonRow[column], isFlag: isFlag), "\(query) \(column)")
                }
                let speciesRow = try await Self.storedRow(of: .species, id: species.id, in: database)
                let shownFacts = Dictionary(facts, uniquingKeysWith: { first, _ in first })
                for (column, isFlag) in speciesColumns {
                    #expect(shownFacts[column] == Self.expected(speciesRow[column], isFlag: isFlag), "\(query) species \(column)")
                }
            }
        }
    }

    /// The declared columns of `table` that `model` has a property for (by
    /// `DeviceSchema.columnName(ofProperty:)`), each with whether the property is a flag.
    static func carried(by model: Any, in table: DeviceSchema.Table) -> [String: Bool] {
        var columns: [String: Bool] = [:]
        for child in Mirror(reflecting: model).children {
            guard let label = child.label else { continue }
            let column = DeviceSchema.columnName(ofProperty: label)
            guard table.columns.contains(column) else { continue }
            columns[column] = type(of: child.value) == Bool.self || type(of: child.value) == Bool?.self
        }
        return columns
    }

    /// The row of `table` whose first key is `id`, every column, from `sqlite3 -json`.
    static func storedRow(of table: DeviceSchema.Table, id: Int, in database: URL) async throws -> [String: JSONValue] {
        let text = try await runTool("sqlite3", ["-json", database.path, "SELECT * FROM \(table.quotedName) WHERE \(table.entityColumn) = \(id)"])
        let rows = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(text.utf8))
        return try #require(rows.first)
    }

    /// A stored value as `show --json` writes it: a flag's 0 or 1 as false or true.
    static func expected(_ stored: JSONValue?, isFlag: Bool) -> JSONValue? {
        if isFlag, case .integer(let number)? = stored { return .bool(number != 0) }
        return stored
    }
}
