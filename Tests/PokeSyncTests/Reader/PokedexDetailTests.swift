import Foundation
import PokedexReader
import Testing

@Suite("PokedexReader: the detail page")
struct PokedexDetailTests {
    @Test("pikachu: types, stats, abilities with the hidden one, moves, size, sprites with female variants")
    func pikachu() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let detail = try #require(try pokedex.pokemon(id: 25, languages: ["en"]))
            #expect(detail.name == "pikachu")
            #expect(detail.types == ["electric"])
            #expect(detail.height == 4)
            #expect(detail.weight == 60)
            #expect(detail.baseExperience == 112)
            #expect(detail.isDefault)
            #expect(detail.stats.map(\.name) == ["hp", "attack", "defense", "special-attack", "special-defense", "speed"])
            #expect(detail.baseStats == ["hp": 35, "attack": 55, "defense": 40, "special-attack": 50,
                                         "special-defense": 50, "speed": 90])
            #expect(detail.stats.last?.effort == 2)
            #expect(detail.abilities.map { [$0.name, "\($0.slot)", "\($0.isHidden)"] }
                    == [["static", "1", "false"], ["lightning-rod", "3", "true"]])
            #expect(detail.moves.count == 109)
            #expect(detail.moves == detail.moves.sorted())
            #expect(detail.moves.contains("thunderbolt"))
            #expect(detail.sprites.count == 119)

            let base = "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/"
            func url(_ path: String) -> URL { URL(string: base + path)! }
            let front = try #require(detail.front)
            #expect(front.default == PokemonSprite(key: "front_default", url: url("25.png"), path: "sprites/pokemon/25.png"))
            #expect(front.female == PokemonSprite(key: "front_female", url: url("female/25.png"), path: nil))
            #expect(pokedex.fileURL(for: front.default) == pokedex.fileURL(forSpritePath: "sprites/pokemon/25.png"))
            #expect(front.female.flatMap(pokedex.fileURL(for:)) == nil)
            #expect(detail.back?.female?.url == url("back/female/25.png"))
            #expect(detail.frontShiny?.female?.key == "front_shiny_female")
            #expect(detail.backShiny?.default.url == url("back/shiny/25.png"))
            #expect(detail.hasFemaleSprites)
            #expect(detail.sprite("other/official-artwork/front_default")?.url.absoluteString == base + "other/official-artwork/25.png")
            #expect(detail.sprite("other/official-artwork/front_default")?.isBundled == false)

            // Cosmog looks the same as a female: no female variant.
            let cosmog = try #require(try pokedex.pokemon(id: 789, languages: ["en"]))
            #expect(cosmog.front?.female == nil)
            #expect(!cosmog.hasFemaleSprites)
            #expect(try pokedex.pokemon(id: 26, languages: ["en"]) == nil)
        }
    }

    @Test("pokemon-guider on the bundle exported with --sprites all: male and female images are files on the device")
    func maleAndFemaleImagesFromTheAllSpritesBundle() async throws {
        try await ReaderDatabases.withSamplePokedex(sprites: "all") { (pokedex: Pokedex) throws in
            let pikachu = try #require(try pokedex.pokemon(id: 25, languages: ["en"]))
            let front = try #require(pikachu.front)
            let male = try #require(front.default.path), female = try #require(front.female?.path)
            #expect(male == "sprites/pokemon/25.png" && female == "sprites/pokemon/female/25.png")
            for path in [male, female] {
                #expect(pokedex.fileURL(forSpritePath: path).map { FileManager.default.fileExists(atPath: $0.path) } == true, "\(path)")
            }
            let file = try #require(pokedex.fileURL(for: front.default))
            #expect(file.isFileURL && FileManager.default.fileExists(atPath: file.path))
            // Every sprite URL of the document is bundled, so every pokemon has a thumbnail.
            #expect(pikachu.sprites.allSatisfy { $0.isBundled })
            let page = try pokedex.list(offset: 0, limit: 50)
            #expect(page.count == 17 && page.allSatisfy { $0.thumbnail != nil })
        }
    }

    @Test("by name: a pokemon's name, then a species' name giving its default pokemon; ids as text")
    func byName() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            #expect(try pokedex.pokemon(named: "pikachu-gmax")?.id == 10199)
            #expect(try pokedex.pokemon(named: "  PIKACHU ")?.id == 25)
            #expect(try pokedex.pokemon(nameOrID: "10312")?.name == "darkrai-mega")
            #expect(try pokedex.pokemon(nameOrID: "cosmoem")?.id == 790)
            // The sample holds species darkrai (491) and orbeetle (826) but not their default
            // pokemon, only forms (darkrai-mega, orbeetle-gmax): a species name gives the
            // default pokemon only, never another form. (giratina -> giratina-altered is
            // checked on the full snapshot.)
            #expect(try pokedex.pokemon(named: "darkrai") == nil)
            #expect(try pokedex.pokemon(named: "orbeetle") == nil)
            #expect(try pokedex.pokemon(named: "missingno") == nil)
        }
    }

    @Test("genus and flavor text in the preferred language, newest game first, English as the fallback")
    func languages() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let chinese = try #require(try pokedex.pokemon(id: 25, languages: ["zh-hant"])?.species)
            #expect(chinese.localizedName == LocalizedText(text: "皮卡丘", language: "zh-hant"))
            #expect(chinese.genus == LocalizedText(text: "鼠寶可夢", language: "zh-hant"))
            #expect(chinese.flavorTexts.count == 8)
            #expect(chinese.flavorTexts.map(\.entryIndex) == chinese.flavorTexts.map(\.entryIndex).sorted(by: >))
            #expect(chinese.flavorText == FlavorText(text: "皮卡丘們把尾巴貼在一起交換電流，其實是在互相打招呼。",
                                                     language: "zh-hant", version: "shield", entryIndex: 137,
                                                     versionName: LocalizedText(text: "盾", language: "zh-hant")))
            #expect(chinese.flavorTexts.last?.version == "sun")

            // Case-insensitive codes; a language the data lacks falls through to the next, then English.
            #expect(try pokedex.pokemon(id: 25, languages: ["ZH-Hant"])?.species?.genus?.language == "zh-hant")
            let fallback = try #require(try pokedex.pokemon(id: 25, languages: ["pt-br", "pt"])?.species)
            #expect(fallback.genus == LocalizedText(text: "Mouse Pokémon", language: "en"))
            #expect(fallback.flavorText == FlavorText(
                text: "Possesses cheek sacs in which it stores electricity. This clever forest-dweller roasts tough "
                    + "berries with an electric shock before consuming them.",
                language: "en", version: "legends-arceus", entryIndex: 146,
                versionName: LocalizedText(text: "Legends: Arceus", language: "en")))
            #expect(try pokedex.pokemon(id: 25, languages: ["pt", "fr"])?.species?.genus?.text == "Pokémon Souris")
            // Cleaned text: the red/blue entry's line breaks and form feed are single spaces.
            let red = fallback.flavorTexts.first { $0.version == "red" }
            #expect(red?.text == "When several of these POKéMON gather, their electricity could build and cause lightning storms.")

            let species = try #require(try pokedex.pokemon(id: 25, languages: ["en"])?.species)
            #expect(species.name == "pikachu")
            #expect(species.generation == "generation-i")
            #expect(species.color == "yellow")
            #expect(species.habitat == "forest")
            #expect(species.genderRate == 4)
            #expect(species.captureRate == 190)
            #expect(!species.isLegendary && !species.isMythical && !species.isBaby)
            #expect(try pokedex.pokemon(id: 789, languages: ["en"])?.species?.isLegendary == true)
        }
    }

    @Test("the evolution chain as a tree of species with triggers; nodes link to default pokemon")
    func evolutionChain() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let cosmog = try #require(try pokedex.pokemon(id: 789, languages: ["ja"])?.species?.evolutionChain)
            #expect(cosmog.speciesID == 789)
            #expect(cosmog.trigger == nil && cosmog.detailsJSON == nil)
            #expect(cosmog.localizedName == LocalizedText(text: "コスモッグ", language: "ja"))
            #expect(cosmog.allSpeciesIDs == [789, 790, 791, 792])
            let cosmoem = try #require(cosmog.children.first)
            #expect(cosmog.children.count == 1)
            #expect(cosmoem.speciesName == "cosmoem")
            #expect(cosmoem.trigger == "level-up")
            #expect(cosmoem.minLevel == 43)
            #expect(cosmoem.defaultPokemonID == 790)
            #expect(cosmoem.defaultPokemonName == "cosmoem")
            #expect(cosmoem.children.map(\.speciesID) == [791, 792])
            #expect(cosmoem.children.map(\.minLevel) == [53, 53])
            // The sample holds the species Solgaleo and Lunala but not their pokemon: names,
            // nothing to tap through to.
            #expect(cosmoem.children.map(\.speciesName) == ["solgaleo", "lunala"])
            #expect(cosmoem.children.map { $0.localizedName?.text } == ["ソルガレオ", "ルナアーラ"])
            #expect(cosmoem.children.allSatisfy { $0.defaultPokemonID == nil && $0.defaultPokemonName == nil })

            // Tapping through: the node's default pokemon opens its own detail, in the same chain.
            let link = try #require(cosmoem.defaultPokemonID)
            let tapped = try #require(try pokedex.pokemon(id: link, languages: ["en"]))
            #expect(tapped.name == "cosmoem")
            #expect(tapped.species?.evolutionChain == (try pokedex.evolutionChain(id: 413, languages: ["en"])))
            #expect(tapped.species?.evolutionChain?.node(speciesID: 790)?.localizedName?.text == "Cosmoem")

            let pikachu = try #require(try pokedex.pokemon(id: 25, languages: ["en"])?.species?.evolutionChain)
            #expect(pikachu.speciesID == 172)
            let node = try #require(pikachu.node(speciesID: 25))
            #expect(node.trigger == "level-up")
            #expect(node.defaultPokemonID == 25)
            #expect(node.detailsJSON?.contains("\"min_happiness\":220") == true)
            let raichu = try #require(node.children.first)
            #expect(raichu.speciesID == 26)
            #expect(raichu.trigger == "use-item")
            #expect(raichu.item == "thunder-stone")

            let applin = try #require(try pokedex.evolutionChain(id: 442, languages: ["en"]))
            #expect(applin.children.map(\.speciesID) == [841, 842, 1011])
            #expect(applin.children.map(\.item) == ["tart-apple", "sweet-apple", "syrupy-apple"])
            #expect(applin.node(speciesID: 1019)?.trigger == "level-up")
            #expect(try pokedex.evolutionChain(id: 9999, languages: ["en"]) == nil)
        }
    }

    @Test("eevee's eight evolutions: triggers and items from the first of their evolution_details")
    func eeveeChain() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let eevee = try #require(try pokedex.pokemon(named: "eevee", languages: ["de"])?.species?.evolutionChain)
            #expect(eevee.speciesID == 133)
            #expect(eevee.defaultPokemonID == 133)
            #expect(eevee.localizedName == LocalizedText(text: "Evoli", language: "de"))
            #expect(try pokedex.evolutionChain(id: 67, languages: ["de"]) == eevee)
            #expect(eevee.children.map(\.speciesID) == [134, 135, 136, 196, 197, 470, 471, 700])
            #expect(eevee.children.map(\.speciesName)
                    == ["vaporeon", "jolteon", "flareon", "espeon", "umbreon", "leafeon", "glaceon", "sylveon"])
            #expect(eevee.children.map(\.trigger)
                    == ["use-item", "use-item", "use-item", "level-up", "level-up", "level-up", "level-up", "level-up"])
            #expect(eevee.children.map(\.item)
                    == ["water-stone", "thunder-stone", "fire-stone", nil, nil, nil, nil, nil])
            #expect(eevee.children.allSatisfy { $0.minLevel == nil && $0.children.isEmpty })
            // The sample has the eeveelutions' species, not their pokemon.
            #expect(eevee.children.allSatisfy { $0.defaultPokemonID == nil })
            // Espeon by day, umbreon by night; leafeon's six ways (one a leaf stone) are all in the JSON.
            let espeon = try #require(eevee.node(speciesID: 196)?.detailsJSON)
            #expect(espeon.contains("\"min_happiness\":160") && espeon.contains("\"time_of_day\":\"day\""))
            #expect(eevee.node(speciesID: 197)?.detailsJSON?.contains("\"time_of_day\":\"night\"") == true)
            let leafeon = try #require(eevee.node(speciesID: 470)?.detailsJSON)
            #expect(leafeon.contains("eterna-forest") && leafeon.contains("leaf-stone"))
            #expect(eevee.node(speciesID: 700)?.detailsJSON?.contains("fairy") == true)
        }
    }

    @Test("locale identifiers map to the API's language codes")
    func localeMapping() {
        #expect(PreferredLanguages.apiCodes(forLocaleIdentifier: "zh-Hant-TW") == ["zh-hant", "zh-hans"])
        #expect(PreferredLanguages.apiCodes(forLocaleIdentifier: "zh-TW") == ["zh-hant", "zh-hans"])
        #expect(PreferredLanguages.apiCodes(forLocaleIdentifier: "zh-Hans-CN") == ["zh-hans", "zh-hant"])
        #expect(PreferredLanguages.apiCodes(forLocaleIdentifier: "ja") == ["ja", "ja-hrkt"])
        #expect(PreferredLanguages.apiCodes(forLocaleIdentifier: "ja_JP") == ["ja", "ja-hrkt"])
        #expect(PreferredLanguages.apiCodes(forLocaleIdentifier: "es-MX") == ["es-mx", "es-419", "es"])
        #expect(PreferredLanguages.apiCodes(forLocaleIdentifier: "es-ES") == ["es"])
        #expect(PreferredLanguages.apiCodes(forLocaleIdentifier: "en-US") == ["en-us", "en"])
        #expect(PreferredLanguages.apiCodes(forLocaleIdentifiers: ["de-DE", "en-GB", "de"]) == ["de-de", "de", "en-gb", "en"])
        #expect(PreferredLanguages.choose(from: ["en", "ZH-Hant"], preferred: ["zh-hant"]) == "ZH-Hant")
        #expect(PreferredLanguages.choose(from: ["fr"], preferred: ["de"]) == nil)
        // ASCII letters alone fold: digits, '-' and the bytes one bit from a letter do not.
        #expect(PreferredLanguages.choose(from: ["ja", "ja-Hrkt"], preferred: ["JA-HRKT"]) == "ja-Hrkt")
        #expect(PreferredLanguages.choose(from: ["es-419", "es"], preferred: ["ES-419"]) == "es-419")
        #expect(PreferredLanguages.choose(from: ["a@", "a\u{0D}"], preferred: ["a`", "a-"]) == nil)
        #expect(PreferredLanguages.choose(from: ["es-419"], preferred: ["es-41"]) == nil)
        #expect(PreferredLanguages.choose(from: ["ÉN"], preferred: ["én"]) == nil)  // codes are ASCII; no Unicode folding
    }
}
