import Foundation
import PokedexReader
import Testing

@Suite("PokedexReader: search as you type")
struct PokedexSearchTests {
    private func ids(_ hits: [SearchHit]) -> [Int] { hits.map(\.pokemon.id) }

    @Test("types' names in every language of the bundle are search strings, exactly as the oracle says")
    func typeNamesInEveryLanguage() async throws {
        // "électrique" is how a French speaker would type it, but the API's French name of the type is "Électrik":
        // by the rule of <doc:PokedexReader/Reader#Search> it finds nothing, and the oracle agrees.
        let queries = ["eau", "électrique", "électrik", "물", "전기", "ほのお", "Wasser", "feu", "drache", "ドラゴン", "fée"]
        let answers = try await ReaderDatabases.oracle(sources: [TestPaths.sample2026], queries: queries)
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            for answer in answers {
                let hits = try pokedex.search(answer.query)
                #expect(hits.map { [$0.pokemon.id, $0.rank.rawValue] } == answer.hits, "\(answer.query)")
            }
            // The electric pokemon, by their type's French and Korean names, exactly.
            let electric = try pokedex.search("électrik")
            #expect(ids(electric) == [25, 10158, 10199] && electric.allSatisfy { $0.rank == .exact })
            #expect(ids(try pokedex.search("전기")) == [25, 10158, 10199])
            #expect(ids(try pokedex.search("ほのお")) == [643, 776, 1020, 10034])
            #expect(ids(try pokedex.search("Feu Drache")) == [643, 776, 1020, 10034])
        }
    }

    @Test("terms over names in every language and types; ranked exact, prefix, substring, then by id")
    func namesTypesAndRanks() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            // The examples of <doc:PokedexReader/Reader#Search>: both types exact for all four (reshiram is dragon and fire),
            // so by id; applin is the sample's one grass and dragon.
            let fireDragon = try pokedex.search("fire dragon")
            #expect(fireDragon.map(\.pokemon.name) == ["reshiram", "turtonator", "gouging-fire", "charizard-mega-x"])
            #expect(ids(fireDragon) == [643, 776, 1020, 10034])
            #expect(fireDragon.allSatisfy { $0.rank == .exact })
            #expect(ids(try pokedex.search("dragon fire")) == [643, 776, 1020, 10034])
            // "flabébé" is the species' name in English, French, German: accents folded both ways.
            #expect(try pokedex.search("flabébé").map(\.pokemon.name) == ["flabebe"])
            #expect(try pokedex.search("flabebe").map(\.pokemon.name) == ["flabebe"])
            #expect(try pokedex.search("FLABÉBÉ").first?.rank == .exact)
            // German for charizard; the sample has its species but of its pokemon only the mega X.
            #expect(ids(try pokedex.search("Glurak")) == [10034])
            #expect(ids(try pokedex.search("grass dragon")) == [840])
            #expect(ids(try pokedex.search("dragon grass")) == [840])
            // Korean, Japanese kana, German names.
            #expect(ids(try pokedex.search("코스모그")) == [789])
            #expect(ids(try pokedex.search("레시라무")) == [643])
            #expect(ids(try pokedex.search("이브이")) == [133])
            #expect(try pokedex.search("이브이").first?.rank == .exact)
            #expect(ids(try pokedex.search("피카")) == [25, 10158, 10199])
            #expect(ids(try pokedex.search("コスモ")) == [789, 790])
            #expect(ids(try pokedex.search("Knapfel")) == [840])
            // Accents and case ignored both ways.
            #expect(ids(try pokedex.search("KNÄPFEL")) == [840])
            #expect(ids(try pokedex.search("mÉltan")) == [808])
            // ß is ss: "graß" is the type grass, exactly.
            let grass = try pokedex.search("graß")
            #expect(ids(grass) == [840])
            #expect(grass.first?.rank == .exact)

            // One term, three ranks: "pikachu" equals pikachu's names, starts pikachu-starter's.
            let pikachu = try pokedex.search("Pikachu")
            #expect(pikachu.map(\.rank) == [.exact, .exact, .exact])  // the species name Pikachu is theirs too
            let starter = try pokedex.search("pikachu-s")
            #expect(ids(starter) == [10158])
            #expect(starter.first?.rank == .prefix)
            let tar = try pokedex.search("tar")
            #expect(ids(tar) == [10158])
            #expect(tar.first?.rank == .substring)
            // The pokemon's rank is its worst term's: "electric" exact, "gmax" substring.
            let gmax = try pokedex.search("electric gmax")
            #expect(ids(gmax) == [10199])
            #expect(gmax.first?.rank == .substring)
            #expect(ids(try pokedex.search("bug")) == [824, 10213])
            #expect(try pokedex.search("bug").allSatisfy { $0.rank == .exact })
        }
    }

    @Test("one letter answers, ordered by rank then id; blank and unmatched queries give nothing")
    func oneLetterAndEmpty() async throws {
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            let hits = try pokedex.search("e")
            // Applin is a prefix: its type grass is "Erba" in Italian, and types' names in
            // every language count (<doc:PokedexReader/Reader#Search>; the oracle agrees, see typeNamesInEveryLanguage).
            #expect(ids(hits) == [25, 133, 840, 10158, 10199, 10213,
                                  643, 669, 776, 790, 808, 824, 999, 1020, 10034, 10312])
            #expect(hits.map(\.rank) == Array(repeating: .prefix, count: 6) + Array(repeating: .substring, count: 10))
            #expect(hits[0].pokemon == PokemonSummary(id: 25, name: "pikachu", localizedName: LocalizedText(text: "Pikachu", language: "en"), types: ["electric"],
                                                      thumbnail: "sprites/pokemon/25.png"))
            #expect(ids(try pokedex.search("e", limit: 3)) == [25, 133, 840])
            #expect(try pokedex.search("").isEmpty)
            #expect(try pokedex.search(" \t ").isEmpty)
            #expect(try pokedex.search("zzz").isEmpty)
            #expect(try pokedex.search("pikachu zzz").isEmpty)
            // Japanese voicing marks stay: ピ (pi) finds ピカチュウ, ビ and ヒ do not.
            #expect(ids(try pokedex.search("ピ")) == [25, 10158, 10199])
            #expect(try pokedex.search("ビ").isEmpty)
        }
    }

    @Test("the same results and order as a brute-force oracle over the sample's JSON, for 500+ queries")
    func agreesWithOracle() async throws {
        let answers = try await ReaderDatabases.oracle(sources: [TestPaths.sample2026], generate: true)
        #expect(answers.count > 400)
        #expect(answers.filter { !$0.hits.isEmpty }.count > 300)
        try await ReaderDatabases.withSamplePokedex { (pokedex: Pokedex) throws in
            for answer in answers {
                let hits = try pokedex.search(answer.query).map { [$0.pokemon.id, $0.rank.rawValue] }
                #expect(hits == answer.hits, "query \"\(answer.query)\"")
            }
        }
    }

    @Test("searching from many threads at once gives the same answers")
    func concurrentSearches() async throws {
        try await withTemporaryDirectory { folder in
            try await ReaderDatabases.makeDeviceFolder(folder)
            let pokedex = try Pokedex(folder: folder)
            let expected = try pokedex.search("e").map(\.pokemon.id)
            let results = try await withThrowingTaskGroup(of: [Int].self) { group in
                for index in 0..<16 {
                    group.addTask {
                        if index % 2 == 0 { _ = try pokedex.pokemon(id: 25, languages: ["en"]) }
                        return try pokedex.search("e").map(\.pokemon.id)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 16)
            #expect(results.allSatisfy { $0 == expected })
        }
    }

    @Test("without the builder's plain pokemon_search table the reader folds the logical tables itself")
    func foldsWhenSearchTableDiffers() async throws {
        try await withTemporaryDirectory { folder in
            let database = try await ReaderDatabases.makeDeviceFolder(folder)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["sqlite3", database.path,
                                 "DROP TABLE pokemon_search; CREATE VIRTUAL TABLE pokemon_search USING fts5(body);"]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let pokedex = try Pokedex(folder: folder)
            let answers = try await ReaderDatabases.oracle(sources: [TestPaths.sample2026], generate: true)
            for answer in answers {
                let hits = try pokedex.search(answer.query).map { [$0.pokemon.id, $0.rank.rawValue] }
                #expect(hits == answer.hits, "query \"\(answer.query)\"")
            }
        }
    }
}
