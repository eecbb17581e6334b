import Foundation
import PokeSQLite
import PokedexReader
import Testing
@testable import PokeSyncCore

/// The device database built from the 2026 sample, checked against values read straight
/// from the sample's JSON.
@Suite("Device database builder")
struct DeviceDatabaseTests {
    @Test func pokemonRowsMatchTheDocument() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let (file, info) = try fixture.build()
            let database = try Database(path: file.path, mode: .readOnly)
            let json = try DeviceDatabaseFixture.json("pokemon", 25)

            let pokemon = try #require(try database.row(
                "SELECT name, species_id, height, weight, base_experience, is_default, sort_order FROM pokemon WHERE id = 25",
                [], { [$0.text(0), $0.int(1), $0.int(2), $0.int(3), $0.int(4), $0.int(5), $0.int(6)] as [AnyHashable] }))
            #expect(pokemon == ["pikachu", 25, json["height"] as! Int, json["weight"] as! Int,
                                json["base_experience"] as! Int, 1, json["order"] as! Int])

            let types = try database.rows("SELECT slot, type FROM pokemon_type WHERE pokemon_id = 25 ORDER BY slot") { "\($0.int(0)):\($0.text(1))" }
            let jsonTypes = (json["types"] as! [[String: Any]]).map { "\($0["slot"]!):\(($0["type"] as! [String: Any])["name"]!)" }
            #expect(types == jsonTypes && types == ["1:electric"])

            let stats = try database.rows("SELECT stat, base_stat, effort FROM pokemon_stat WHERE pokemon_id = 25") { "\($0.text(0))=\($0.int(1))/\($0.int(2))" }
            let jsonStats = (json["stats"] as! [[String: Any]]).map {
                "\(($0["stat"] as! [String: Any])["name"]!)=\($0["base_stat"]!)/\($0["effort"]!)"
            }
            #expect(Set(stats) == Set(jsonStats) && stats.count == 6)

            let abilities = try database.rows("SELECT ability, is_hidden FROM pokemon_ability WHERE pokemon_id = 25 ORDER BY slot") { "\($0.text(0))/\($0.int(1))" }
            #expect(abilities == ["static/0", "lightning-rod/1"])

            let moves = try database.rows("SELECT move FROM pokemon_move WHERE pokemon_id = 25") { $0.text(0) }
            let jsonMoves = Set((json["moves"] as! [[String: Any]]).map { ($0["move"] as! [String: Any])["name"] as! String })
            #expect(Set(moves) == jsonMoves && moves.count == jsonMoves.count && moves.contains("thunderbolt"))

            // One row per non-null sprite URL; only the bundled front_default has a path.
            var jsonSprites: [String: String] = [:]
            func walk(_ value: Any, _ path: String) {
                if let object = value as? [String: Any] {
                    for (key, child) in object { walk(child, path.isEmpty ? key : "\(path)/\(key)") }
                } else if let url = value as? String { jsonSprites[path] = url }
            }
            walk(json["sprites"]!, "")
            let sprites = Dictionary(uniqueKeysWithValues: try database.rows(
                "SELECT key, url, path FROM pokemon_sprite WHERE pokemon_id = 25") { ($0.text(0), ($0.text(1), $0.optionalText(2))) })
            #expect(sprites.mapValues(\.0) == jsonSprites)
            #expect(sprites["front_default"]?.1 == "sprites/pokemon/25.png")
            #expect(sprites["versions/generation-i/red-blue/front_gray"]?.0
                    == "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/versions/generation-i/red-blue/gray/25.png")
            #expect(sprites.filter { $0.value.1 != nil }.count == 1)
            #expect(info.bundledSprites.contains { $0.path == "sprites/pokemon/25.png" })
            // 17 pokemon; pikachu-starter (10158) has no front_default.
            #expect(info.bundledSprites.count == 16)
            #expect(try database.integer("SELECT COUNT(*) FROM pokemon_sprite WHERE path IS NOT NULL") == 16)
            #expect(info.unheldSprites.isEmpty)
        }
    }

    @Test func speciesRowsMatchTheDocument() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let (file, _) = try fixture.build()
            let database = try Database(path: file.path, mode: .readOnly)
            let json = try DeviceDatabaseFixture.json("pokemon-species", 25)

            let species = try #require(try database.row("""
                SELECT name, generation, evolution_chain_id, evolves_from_species_id, is_baby, is_legendary,
                       is_mythical, color, habitat, gender_rate, capture_rate FROM species WHERE id = 25
                """, [], { row in (0..<11).map { row.isNull(Int32($0)) ? "NULL" : row.text(Int32($0)) } }))
            #expect(species == ["pikachu", "generation-i", "10", "172", "0", "0", "0", "yellow", "forest",
                                "\(json["gender_rate"]!)", "\(json["capture_rate"]!)"])

            // The Japanese (kana) genus, as the document gives it.
            let genus = (json["genera"] as! [[String: Any]]).first { ($0["language"] as! [String: Any])["name"] as? String == "ja-hrkt" }!["genus"] as! String
            #expect(try database.row("SELECT name, genus FROM species_name WHERE species_id = 25 AND language = 'ja-hrkt'", []) {
                [$0.text(0), $0.text(1)] } == ["ピカチュウ", genus])
            #expect(genus == "ねずみポケモン")

            // Flavor texts: the first per (language, version), cleaned, with its position.
            let entries = json["flavor_text_entries"] as! [[String: Any]]
            var expected: [String: (Int, String)] = [:]
            for (index, entry) in entries.enumerated() {
                let language = (entry["language"] as! [String: Any])["name"] as! String
                let version = (entry["version"] as! [String: Any])["name"] as! String
                if language == "ko", expected[version] == nil { expected[version] = (index, Self.clean(entry["flavor_text"] as! String)) }
            }
            let rows = try database.rows("SELECT version, entry_index, text FROM species_flavor_text WHERE species_id = 25 AND language = 'ko'") {
                ($0.text(0), $0.int(1), $0.text(2))
            }
            #expect(!rows.isEmpty && rows.count == expected.count)
            for (version, index, text) in rows {
                #expect(expected[version]?.0 == index && expected[version]?.1 == text, "\(version)")
                #expect(!text.contains("\n") && !text.contains("\u{0C}") && !text.contains("  "))
            }
            let english = try #require(try database.row(
                "SELECT text FROM species_flavor_text WHERE species_id = 25 AND language = 'en' AND version = 'red'", [], { $0.text(0) }))
            #expect(english == "When several of these POKéMON gather, their electricity could build and cause lightning storms.")
        }
    }

    @Test func evolutionStepsAndPokedexes() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let (file, info) = try fixture.build()
            let database = try Database(path: file.path, mode: .readOnly)
            // Applin's chain branches three ways, then dipplin evolves again: four steps.
            let steps = try database.rows("""
                SELECT to_species_id, from_species_id, trigger, min_level, item, details_json
                FROM evolution_step WHERE chain_id = 442 ORDER BY to_species_id
                """) { [$0.int(0), $0.int(1), $0.optionalText(2), $0.optionalInt(3), $0.optionalText(4), $0.text(5)] as [AnyHashable?] }
            #expect(steps.map { $0[0] } == [841, 842, 1011, 1019])
            #expect(steps.map { $0[1] } == [840, 840, 840, 1011])
            #expect(steps[0][2] == AnyHashable("use-item") && steps[0][4] == AnyHashable("tart-apple") && steps[3][2] == AnyHashable("level-up"))
            // details_json is all of evolution_details as canonical JSON.
            let chain = try DeviceDatabaseFixture.json("evolution-chain", 442)
            let flapple = ((chain["chain"] as! [String: Any])["evolves_to"] as! [[String: Any]])
                .first { (($0["species"] as! [String: Any])["name"] as! String) == "flapple" }!
            let canonical = try JSONSerialization.data(withJSONObject: flapple["evolution_details"]!,
                                                       options: [.sortedKeys, .withoutEscapingSlashes])
            #expect(steps[0][5] == AnyHashable(String(decoding: canonical, as: UTF8.self)))
            #expect(try database.row("SELECT root_species_id, baby_trigger_item FROM evolution_chain WHERE id = 442", []) {
                [$0.int(0) as AnyHashable?, $0.optionalText(1)] } == [840, nil])
            // Raichu's step keeps both of its details, trigger from the first.
            let raichu = try #require(try database.row("SELECT trigger, item, details_json FROM evolution_step WHERE chain_id = 10 AND to_species_id = 26", []) {
                [$0.text(0), $0.text(1), $0.text(2)] })
            #expect(raichu[0] == "use-item" && raichu[1] == "thunder-stone" && raichu[2].components(separatedBy: "\"trigger\"").count == 3)

            let pokedex = try database.row("SELECT name, region, is_main_series FROM pokedex WHERE id = 17", []) { [$0.text(0), $0.text(1), $0.text(2)] }
            #expect(pokedex == ["original-melemele", "alola", "1"])
            let json = try DeviceDatabaseFixture.json("pokedex", 17)
            #expect(try database.integer("SELECT COUNT(*) FROM pokedex_entry WHERE pokedex_id = 17") == (json["pokemon_entries"] as! [Any]).count)
            // The sample keeps the entries of its species only: pichu, pikachu, raichu.
            #expect(try database.rows("SELECT entry_number, species_id FROM pokedex_entry WHERE pokedex_id = 17 ORDER BY 1") {
                [$0.int(0), $0.int(1)] } == [[24, 172], [25, 25], [26, 26]])
            #expect(try database.row("SELECT description FROM pokedex_description WHERE pokedex_id = 17 AND language = 'fr'", []) { $0.text(0) }
                    == "Pokédex de Mele-Mele dans Soleil/Lune")
            #expect(info.danglingReferences.isEmpty)
        }
    }

    @Test func eeveeHasEightEvolutionSteps() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let (file, _) = try fixture.build()
            let database = try Database(path: file.path, mode: .readOnly)
            let steps = try database.rows("""
                SELECT to_species_id, from_species_id, trigger, min_level, item, details_json
                FROM evolution_step WHERE chain_id = 67 ORDER BY to_species_id
                """) { [$0.int(0), $0.int(1), $0.optionalText(2), $0.optionalInt(3), $0.optionalText(4), $0.text(5)] as [AnyHashable?] }
            #expect(steps.map { $0[0] } == [134, 135, 136, 196, 197, 470, 471, 700])
            #expect(steps.allSatisfy { $0[1] == AnyHashable(133) && $0[3] == nil })
            // Three stones; espeon and umbreon by friendship, leafeon and glaceon first by
            // place (a stone later in their lists), sylveon by a fairy move: all level-up.
            #expect(steps.map { $0[2] } == ["use-item", "use-item", "use-item", "level-up", "level-up", "level-up",
                                            "level-up", "level-up"].map { AnyHashable($0) })
            #expect(steps.map { $0[4] } == [AnyHashable("water-stone"), AnyHashable("thunder-stone"),
                                            AnyHashable("fire-stone"), nil, nil, nil, nil, nil])
            #expect(try database.row("SELECT root_species_id, baby_trigger_item FROM evolution_chain WHERE id = 67", []) {
                [$0.int(0) as AnyHashable?, $0.optionalText(1)] } == [133, nil])

            // Each row against the chain document: trigger and item from the first of its
            // evolution_details, all of them in details_json.
            let chain = try DeviceDatabaseFixture.json("evolution-chain", 67)
            let children = (chain["chain"] as! [String: Any])["evolves_to"] as! [[String: Any]]
            #expect(children.count == 8)
            for child in children {
                let species = try #require(ListedResource.id(fromURL: (child["species"] as! [String: Any])["url"] as! String))
                let step = try #require(steps.first { $0[0] == AnyHashable(species) })
                let details = child["evolution_details"] as! [[String: Any]]
                let first = details[0]
                #expect(step[2] == AnyHashable((first["trigger"] as! [String: Any])["name"] as! String))
                #expect(step[4] == ((first["item"] as? [String: Any])?["name"] as? String).map { AnyHashable($0) })
                let canonical = try JSONSerialization.data(withJSONObject: details, options: [.sortedKeys, .withoutEscapingSlashes])
                #expect(step[5] == AnyHashable(String(decoding: canonical, as: UTF8.self)), "species \(species)")
            }
            let leafeon = try #require(steps.first { $0[0] == AnyHashable(470) }?[5] as? String)
            #expect(leafeon.components(separatedBy: "\"trigger\"").count == 7 && leafeon.contains("leaf-stone"))
        }
    }

    @Test func flavorTextCleaning() {
        #expect(FlavorTextRule.clean(" Pika\u{00AD}\nchu\u{0C}is  here\r\nnow\n") == "Pikachu is here now")
        #expect(FlavorTextRule.clean("soft\u{00AD}\r\nhyphen, ポケモン\u{00AD}") == "softhyphen, ポケモン\u{00AD}")
        #expect(FlavorTextRule.clean("\n\u{0C}") == "")
    }

    /// The CJK rule (<doc:PokedexReader/DeviceDatabase#Flavor-texts>): a line break between two CJK characters goes (Chinese and
    /// Japanese put no space there); next to anything else it is a space.
    @Test func flavorTextCleaningKeepsChineseAndJapaneseLinesTogether() {
        // pikachu's shield entries, as the 2026 snapshot has them.
        #expect(FlavorTextRule.clean("皮卡丘们把尾巴\n贴在一起交换电流，\n其实是在互相打招呼。")
                == "皮卡丘们把尾巴贴在一起交换电流，其实是在互相打招呼。")
        #expect(FlavorTextRule.clean("おたがいの\u{3000}しっぽを\u{3000}くっつけて\nでんきを\u{3000}ながしあうのが\nピカチュウ")
                == "おたがいの\u{3000}しっぽを\u{3000}くっつけて\nでんきを\u{3000}ながしあうのが\nピカチュウ"
                    .replacingOccurrences(of: "\n", with: ""))
        // Katakana's long mark, full-width forms and CRLF and form feeds count too.
        #expect(FlavorTextRule.clean("ポケモンー\r\nＡ\u{0C}字") == "ポケモンーＡ字")
        // Next to Latin text, digits or a space, a break is a space.
        #expect(FlavorTextRule.clean("ピカチュウ\nPikachu\n25\n電気") == "ピカチュウ Pikachu 25 電気")
        #expect(FlavorTextRule.clean("전기\n타입") == "전기 타입")  // Korean puts spaces between words
        #expect(FlavorTextRule.clean("電気 \n流し") == "電気 流し")
    }

    /// The cleaning of <doc:PokedexReader/DeviceDatabase#Flavor-texts>, written independently: soft hyphen + line break dropped, form
    /// feeds and line breaks as spaces, runs of spaces as one, trimmed.
    static func clean(_ text: String) -> String {
        var result = text.replacingOccurrences(of: "\u{00AD}\n", with: "")
        for separator in ["\u{0C}", "\n", "\r"] { result = result.replacingOccurrences(of: separator, with: " ") }
        while result.contains("  ") { result = result.replacingOccurrences(of: "  ", with: " ") }
        return result.trimmingCharacters(in: .whitespaces)
    }
}
