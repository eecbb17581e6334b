import Foundation
import PokedexReader
import Testing

/// The three apps' screens in English, French, Korean and Japanese, on a device installed
/// from a real bundle of the 2026 sample (``SampleBundles``), through `PokedexReader` alone.
@Suite("PokedexReader: the apps in the device's language")
struct LocalizedAppTests {
    /// A Japanese device prefers `ja`, then kana `ja-hrkt` (``PreferredLanguages``): the
    /// API names games and stats in `ja-hrkt` only.
    static let languages: [(code: String, preferred: [String], electric: String, pikachu: String, charizard: String)] = [
        ("en", ["en"], "Electric", "Pikachu", "Charizard"), ("fr", ["fr"], "Électrik", "Pikachu", "Dracaufeu"),
        ("ko", ["ko"], "전기", "피카츄", "리자몽"), ("ja", ["ja", "ja-hrkt"], "でんき", "ピカチュウ", "リザードン"),
    ]

    @Test("PokedexUI: the grid sorted by type with localized names and thumbnails; search by type name in each language")
    func pokedexUI() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let page = try pokedex.list(offset: 0, limit: 50, sortedBy: .type)
            #expect(page.count == 17)
            for language in Self.languages {
                let extras = try pokedex.listExtras(for: page.map(\.id), languages: language.preferred)
                #expect(extras.count == 17)
                #expect(extras[25]?.localizedName?.text == language.pikachu, "\(language.code)")
                #expect(extras[10034]?.localizedName?.text == language.charizard, "\(language.code)")
                #expect(extras[25]?.thumbnailURL?.absoluteString == "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/25.png")
                // The list's rows carry the same names in the one call, and search's too.
                let localized = try pokedex.list(offset: 0, limit: 50, sortedBy: .type, languages: language.preferred)
                #expect(localized.map(\.id) == page.map(\.id))
                #expect(localized.first { $0.id == 10034 }?.localizedName?.text == language.charizard, "\(language.code)")
                let found = try pokedex.search("pikachu", languages: language.preferred)
                #expect(found.first?.pokemon.localizedName?.text == language.pikachu, "\(language.code)")
                // Search by the type's name in this language: the electric pokemon, exactly.
                let hits = try pokedex.search(language.electric)
                #expect(hits.filter { $0.rank == .exact }.map(\.pokemon.id) == [25, 10158, 10199], "\(language.code)")
                let types = try pokedex.types(languages: language.preferred)
                #expect(types.count == 21)
                #expect(types.first { $0.name == "electric" }?.localizedName?.text == language.electric)
            }
            // Every pokemon of a type, paged.
            #expect(try pokedex.pokemonCount(ofType: "dragon") == 5)
            #expect(try pokedex.pokemon(ofType: "dragon", offset: 0, limit: 3).map(\.id) == [643, 776, 840])
            #expect(try pokedex.pokemon(ofType: "dragon", offset: 3, limit: 3).map(\.id) == [1020, 10034])
            // The language picker.
            let picker = try pokedex.bundleLanguages(languages: ["fr"])
            #expect(picker.contains { $0.code == "ko" && $0.localizedName?.text == "Coréen" && $0.nativeName == "한국어" })
            #expect(picker.map(\.code).contains("ja-hrkt") && picker.map(\.code).contains("en"))
        }
    }

    @Test("pokemon-guider: the detail's flavor text and game in each language; the matchup of two types")
    func pokemonGuider() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            // English has a newer game's entry (legends-arceus) than the others (shield).
            let games = ["en": "Legends: Arceus", "fr": "Bouclier", "ko": "실드", "ja": "シールド"]
            for language in Self.languages {
                let species = try #require(try pokedex.pokemon(id: 25, languages: language.preferred)?.species)
                let flavor = try #require(species.flavorText)
                #expect(flavor.language == language.code)
                #expect(flavor.versionName?.text == games[language.code], "\(language.code)")
                #expect(!flavor.text.contains("\n"))
            }
            let japanese = try #require(try pokedex.pokemon(id: 25, languages: ["ja"])?.species?.flavorText)
            #expect(japanese.text == "おたがいの\u{3000}しっぽを\u{3000}くっつけて電気を\u{3000}流しあうのがピカチュウ\u{3000}同士の\u{3000}挨拶だ。")
            // Select two types, show the attack multipliers.
            #expect(try pokedex.damageFactor(attacking: "ground", defending: ["electric", "flying"]) == 0)
            #expect(try pokedex.damageFactor(attacking: "ice", defending: ["grass", "dragon"]) == 4)
            #expect(try pokedex.damageFactor(attacking: "fire", defending: ["fire", "dragon"]) == 0.25)
            #expect(try pokedex.damageFactor(attacking: "electric", defending: ["water", "flying"]) == 4)
            #expect(try pokedex.damageFactor(attacking: "normal", defending: ["fire"]) == 1)
            // Reshiram's chart: dragon, ground and rock 2x; grass and electric 1/4x...
            let chart = try #require(try pokedex.typeDefense(pokemonID: 643, languages: ["ko"]))
            #expect(chart.factors.count == 18)
            #expect(chart.factor(of: "dragon") == 2 && chart.factor(of: "grass") == 0.25 && chart.factor(of: "fire") == 0.25)
            #expect(chart.byFactor.first?.factor == 2)
            #expect(chart.byFactor.first?.types.map(\.displayName).contains("드래곤") == true)
        }
    }

    @Test("PokeExplorer: abilities (short effect, flavor text) and moves (type, class, power, accuracy, pp) in each language")
    func pokeExplorer() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let abilities = ["en": "Static", "fr": "Statik", "ko": "정전기", "ja": "せいでんき"]
            let thunderbolt = ["en": "Thunderbolt", "fr": "Tonnerre", "ko": "10만볼트", "ja": "１０まんボルト"]
            let speed = ["en": "Speed", "fr": "Vitesse", "ko": "스피드", "ja": "すばやさ"]
            for language in Self.languages {
                let detail = try #require(try pokedex.pokemon(id: 25, languages: language.preferred))
                #expect(detail.localizedTypes.map(\.localizedName?.text) == [language.electric])
                let ability = try #require(detail.abilities.first)
                #expect(ability.name == "static" && ability.localizedName?.text == abilities[language.code])
                #expect(ability.flavorText?.language == language.code, "\(language.code)")
                #expect(ability.shortEffect != nil)
                let move = try #require(detail.moveDetails.first { $0.name == "thunderbolt" })
                #expect(move.localizedName?.text == thunderbolt[language.code])
                #expect(move.type == "electric" && move.damageClass == "special" && move.power == 90
                        && move.accuracy == 100 && move.pp == 15)
                #expect(detail.stats.first { $0.name == "speed" }?.localizedName?.text == speed[language.code])
            }
            // A move the small sample leaves out keeps its slug.
            let detail = try #require(try pokedex.pokemon(id: 25, languages: ["ko"]))
            #expect(detail.moveDetails.count == detail.moves.count)
            #expect(detail.moveDetails.contains { $0.localizedName == nil && $0.power == nil })
        }
    }
}

@Suite("PokedexReader: typed evolution conditions")
struct EvolutionConditionTests {
    @Test("every field of evolution_details as a typed value: Espeon's friendship by day, Jolteon's stone")
    func eeveelutions() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let chain = try #require(try pokedex.pokemon(id: 133, languages: ["en"])?.species?.evolutionChain)
            let espeon = try #require(chain.node(speciesID: 196)?.conditions.first)
            #expect(espeon.trigger == "level-up" && espeon.minHappiness == 160 && espeon.timeOfDay == "day")
            #expect(espeon.item == nil && espeon.minLevel == nil && espeon.needsOverworldRain == false)
            #expect(espeon.baseForm == "eevee" && espeon.versionGroup == "gold-silver")
            let jolteon = try #require(chain.node(speciesID: 135)?.conditions.first)
            #expect(jolteon.trigger == "use-item" && jolteon.item == "thunder-stone" && jolteon.timeOfDay == nil)
            #expect(chain.conditions.isEmpty)
            // Each node's conditions are all of the step's details.
            let leafeon = try #require(chain.node(speciesID: 470))
            #expect(leafeon.conditions.count == 6)
            let data = try JSONEncoder().encode(espeon)
            #expect(try JSONDecoder().decode(EvolutionCondition.self, from: data) == espeon)
        }
    }
}
