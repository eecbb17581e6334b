import Foundation
import PokedexReader
import Testing

@Suite("PokedexReader: the list and the pokedexes")
struct PokedexListTests {
    @Test("a page of 20 by id: names, types in slot order, thumbnails of bundled sprites")
    func firstPageByID() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            #expect(try pokedex.pokemonCount() == 17)
            let page = try pokedex.list(offset: 0, limit: 20)
            #expect(page.map(\.id) == [25, 133, 643, 669, 776, 789, 790, 808, 824, 840, 999, 1020, 10034,
                                       10158, 10199, 10213, 10312])
            #expect(page[0] == PokemonSummary(id: 25, name: "pikachu", localizedName: LocalizedText(text: "Pikachu", language: "en"), types: ["electric"],
                                              thumbnail: "sprites/pokemon/25.png"))
            #expect(page[9] == PokemonSummary(id: 840, name: "applin", localizedName: LocalizedText(text: "Applin", language: "en"), types: ["grass", "dragon"],
                                              thumbnail: "sprites/pokemon/840.png"))
            #expect(page[2].types == ["dragon", "fire"])
            #expect(page[15].types == ["bug", "psychic"])
            // pikachu-starter has no front_default, and the default profile bundles nothing else.
            #expect(page[13].name == "pikachu-starter")
            #expect(page[13].thumbnail == nil)
            #expect(try pokedex.summary(id: 10158) == page[13])
            #expect(try pokedex.summary(id: 1) == nil)
        }
    }

    @Test("paging: offset and limit cut the same order")
    func paging() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let all = try pokedex.list(offset: 0, limit: 100)
            #expect(try pokedex.list(offset: 2, limit: 4) == Array(all[2..<6]))
            #expect(try pokedex.list(offset: 16, limit: 20).map(\.id) == [10312])
            #expect(try pokedex.list(offset: 17, limit: 20).isEmpty)
        }
    }

    @Test("the thumbnail falls back to official artwork, then home, when front_default is not bundled")
    func thumbnailFallback() async throws {
        try await ReaderDatabases.withSamplePokedex(sprites: "other/official-artwork/front_default,other/home/front_default") {
            (pokedex: Pokedex) throws in
            let page = try pokedex.list(limit: 20)
            #expect(page.first { $0.id == 25 }?.thumbnail == "sprites/pokemon/other/official-artwork/25.png")
            #expect(page.first { $0.id == 10158 }?.thumbnail == "sprites/pokemon/other/official-artwork/10158.png")
        }
        try await ReaderDatabases.withSamplePokedex(sprites: "other/home/front_default") { (pokedex: Pokedex) throws in
            #expect(try pokedex.summary(id: 25)?.thumbnail == "sprites/pokemon/other/home/25.png")
            // pikachu-starter has no home sprite either.
            #expect(try pokedex.summary(id: 10158)?.thumbnail == nil)
        }
        try await ReaderDatabases.withSamplePokedex(sprites: "none") { (pokedex: Pokedex) throws in
            #expect(try pokedex.list(limit: 20).allSatisfy { $0.thumbnail == nil })
        }
    }

    @Test("sort by type: by first type, then id; sort by name")
    func sortByTypeAndName() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let byType = try pokedex.list(limit: 20, sortedBy: .type)
            #expect(byType.map(\.id) == [824, 10213, 10312, 643, 25, 10158, 10199, 669, 776, 1020, 10034, 999, 840,
                                         133, 789, 790, 808])
            #expect(byType.map { $0.types[0] } == ["bug", "bug", "dark", "dragon", "electric", "electric", "electric",
                                                   "fairy", "fire", "fire", "fire", "ghost", "grass", "normal",
                                                   "psychic", "psychic", "steel"])
            #expect(try pokedex.list(offset: 3, limit: 3, sortedBy: .type).map(\.id) == [643, 25, 10158])
            let byName = try pokedex.list(limit: 20, sortedBy: .name).map(\.name)
            #expect(byName == byName.sorted())
            #expect(byName.first == "applin")
        }
    }

    @Test("pokedexes with descriptions in the preferred language, else English; entries in entry order")
    func pokedexes() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let french = try pokedex.pokedexes(languages: ["fr"])
            #expect(french.map(\.id) == [17, 20, 35])
            // The sample's pokedexes keep only the entries of its species (Tests/Fixtures/README.md).
            #expect(french.map(\.entryCount) == [3, 0, 4])
            #expect(french[0].name == "original-melemele")
            #expect(french[0].region == "alola")
            #expect(french[0].description == LocalizedText(text: "Pokédex de Mele-Mele dans Soleil/Lune", language: "fr"))
            // The sample's pokedex 17 has no zh-hant description: English it is.
            let fallback = try pokedex.pokedexes(languages: ["zh-hant"])
            #expect(fallback[0].description == LocalizedText(text: "Sun/Moon Melemele dex", language: "en"))
            #expect(try pokedex.pokedexes(languages: ["ES-419"])[0].description?.language == "es-419")

            #expect(try pokedex.entryCount(ofPokedex: 17) == 3)
            let first = try pokedex.entries(ofPokedex: 17, offset: 0, limit: 3)
            #expect(first.map(\.entryNumber) == [24, 25, 26])
            #expect(first.map(\.speciesID) == [172, 25, 26])
            #expect(first.map(\.speciesName) == ["pichu", "pikachu", "raichu"])
            // The sample holds the species pichu and raichu but not their pokemon.
            #expect(first.map { $0.pokemon?.id } == [nil, 25, nil])
            let pikachu = try pokedex.entries(ofPokedex: 17, offset: 1, limit: 1)
            #expect(pikachu.first?.entryNumber == 25)
            #expect(pikachu.first?.speciesName == "pikachu")
            #expect(pikachu.first?.pokemon?.id == 25)
            #expect(pikachu.first?.pokemon?.thumbnail == "sprites/pokemon/25.png")
            // Darkrai's species is there, its default pokemon (491) is not: only darkrai-mega.
            let hyperspaceAll = try pokedex.entries(ofPokedex: 35, offset: 0, limit: 200)
            #expect(hyperspaceAll.map(\.entryNumber) == [35, 36, 123, 125])
            #expect(hyperspaceAll.map(\.speciesName) == ["gimmighoul", "gholdengo", "meltan", "darkrai"])
            let hyperspace = hyperspaceAll.filter { $0.pokemon != nil }
            #expect(hyperspace.map(\.entryNumber) == [35, 123])
            #expect(hyperspace.map { $0.pokemon?.name } == ["gimmighoul", "meltan"])
        }
    }
}
