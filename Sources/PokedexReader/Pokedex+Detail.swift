import Foundation
import PokeSQLite

extension Pokedex {
    /// The detail page of the pokemon with `id`; nil when there is none.
    ///
    /// Localized texts (species name, genus, flavor text, names of types, abilities,
    /// moves, stats, evolution nodes) are in the first of `languages` the data has, else
    /// English; nil `languages` means those the `Pokedex` was opened with. Codes are the
    /// API's (`zh-hant`, `ja-hrkt`), compared case-insensitively; ``PreferredLanguages``
    /// maps locales to them.
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read.
    public func pokemon(id: Int, languages: [String]? = nil) throws -> PokemonDetail? {
        let languages = languages ?? self.languages
        return try read { database in try Self.detail(id: id, languages: languages, in: database) }
    }

    /// The detail page for a name: a pokemon's name first (`giratina-altered`), then a
    /// species' name, which gives its default pokemon (`giratina`). Case and surrounding
    /// spaces are ignored. Nil when neither matches.
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read.
    public func pokemon(named name: String, languages: [String]? = nil) throws -> PokemonDetail? {
        let slug = SQLValue.text(name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
        let languages = languages ?? self.languages
        return try read { database in
            let id = try database.record(Self.pokemonByName, [slug]) { try $0.int("id") }
                ?? database.record(Self.defaultPokemonBySpeciesName, [slug]) { try $0.int("id") }
            guard let id else { return nil }
            return try Self.detail(id: id, languages: languages, in: database)
        }
    }

    /// ``pokemon(id:languages:)`` for an all-digit argument, else ``pokemon(named:languages:)``:
    /// what `pokesync show NAME|ID` takes.
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read.
    public func pokemon(nameOrID: String, languages: [String]? = nil) throws -> PokemonDetail? {
        let trimmed = nameOrID.trimmingCharacters(in: .whitespacesAndNewlines)
        if let id = Int(trimmed), trimmed.allSatisfy(\.isASCII) {
            return try pokemon(id: id, languages: languages)
        }
        return try pokemon(named: trimmed, languages: languages)
    }

    static let pokemonByName = ReadQuery(.pokemon, ["id"], "WHERE name = ?")
    static let defaultPokemonBySpeciesName = ReadQuery(.pokemon, as: "p", ["id"], """
        FROM species s JOIN pokemon p ON p.species_id = s.id AND p.is_default = 1 WHERE s.name = ? ORDER BY p.id LIMIT 1
        """)
    static let pokemonRow = ReadQuery(.pokemon, PokemonDetail.columns + ["species_id"], "WHERE id = ?")
    static let statRows = ReadQuery(.pokemonStat, PokemonStat.columns, "WHERE pokemon_id = ?")
    static let statNames = ReadQuery(.statName, as: "n", ["language", "name"], also: [.column(.stat, alias: "s", "name", as: "slug")], """
        FROM stat s JOIN stat_name n ON n.stat_id = s.id WHERE s.name IN (SELECT stat FROM pokemon_stat WHERE pokemon_id = ?)
        AND n.language IN (?*)
        """)
    static let spriteRows = ReadQuery(.pokemonSprite, PokemonSprite.columns, "WHERE pokemon_id = ? ORDER BY key")
    static let speciesRow = ReadQuery(.species, SpeciesDetail.columns, "WHERE id = ?")
    static let speciesNames = ReadQuery(.speciesName, ["language", "name", "genus"], "WHERE species_id = ?")
    static let flavorTextLanguages = ReadQuery(.speciesFlavorText, ["language"], "WHERE species_id = ? GROUP BY language")
    static let flavorTextRows = ReadQuery(.speciesFlavorText, FlavorText.columns,
                                          "WHERE species_id = ? AND language = ? ORDER BY entry_index DESC, version")
    static let versionNames = ReadQuery(.versionName, as: "n", ["language", "name"], also: [.column(.version, alias: "v", "name", as: "slug")], """
        FROM version v JOIN version_name n ON n.version_id = v.id
        WHERE v.name IN (SELECT version FROM species_flavor_text WHERE species_id = ? AND language = ?) AND n.language IN (?*)
        """)

    static func detail(id: Int, languages: [String], in database: Database) throws -> PokemonDetail? {
        let key = SQLValue.integer(Int64(id))
        // The other tables' parts are read while the `pokemon` row is held (other statements).
        return try database.record(pokemonRow, [key]) { row in
            let localizedTypes = try localizedTypes(pokemonID: id, languages: languages, in: database)
            let abilities = try localizedAbilities(pokemonID: id, languages: languages, in: database)
            let statNames = try localizedNames(statNames, [key], languages, in: database)
            let stats = try database.records(statRows, [key]) { row in
                try PokemonStat(row: row, localizedName: statNames[try row.text("stat")])
            }
            // A URL that does not parse (pokesync writes none) leaves its sprite out rather than the detail.
            let sprites = try database.records(spriteRows, [key]) { row in
                try UpstreamURL.make(try row.text("url")).map { try PokemonSprite(row: row, url: $0) }
            }.compactMap { $0 }
            let species = try speciesDetail(id: try row.int("species_id"), languages: languages, in: database)
            let moves = try localizedMoves(pokemonID: id, languages: languages, in: database)
            return try PokemonDetail(row: row, localizedTypes: localizedTypes, abilities: abilities, moveDetails: moves,
                                     stats: stats.sorted(by: statOrder), sprites: sprites, species: species)
        }
    }

    /// Game order for the six stats; any other stat after them, by name.
    private static func statOrder(_ lhs: PokemonStat, _ rhs: PokemonStat) -> Bool {
        let order = ["hp", "attack", "defense", "special-attack", "special-defense", "speed"]
        let left = order.firstIndex(of: lhs.name) ?? order.count
        let right = order.firstIndex(of: rhs.name) ?? order.count
        return left != right ? left < right : lhs.name < rhs.name
    }

    static func speciesDetail(id: Int, languages: [String], in database: Database) throws -> SpeciesDetail? {
        let key = SQLValue.integer(Int64(id))
        return try database.record(speciesRow, [key]) { row in
            let names = try database.records(speciesNames, [key]) { row in
                (language: try row.text("language"), name: try row.optionalText("name"), genus: try row.optionalText("genus"))
            }
            let localizedName = choose(names.compactMap { row in row.name.map { LocalizedText(text: $0, language: row.language) } },
                                       languages)
            let genus = choose(names.compactMap { row in row.genus.map { LocalizedText(text: $0, language: row.language) } },
                               languages)
            // One language's texts, newest game first: entry_index is the position in the API's
            // list, which runs in game order. (Every language's would be ten times the strings.)
            let textLanguages = try database.records(flavorTextLanguages, [key]) { try $0.text("language") }
            let language = PreferredLanguages.choose(from: textLanguages.sorted(), preferred: languages)
            let texts: [FlavorText] = try language.map { language in
                // The names of the games of the texts shown (one language's), not of every text's.
                let versionNames = try localizedNames(versionNames, [key, .text(language)], languages, in: database)
                return try database.records(flavorTextRows, [key, .text(language)]) { row in
                    try FlavorText(row: row, versionName: versionNames[try row.text("version")])
                }
            } ?? []
            let chain = try row.optionalInt("evolution_chain_id").flatMap {
                try evolutionChain(id: $0, languages: languages, in: database)
            }
            return try SpeciesDetail(row: row, localizedName: localizedName, genus: genus, flavorTexts: texts,
                                     evolutionChain: chain)
        }
    }

    /// The text in the first preferred language present, else English, else nil.
    static func choose(_ texts: [LocalizedText], _ languages: [String]) -> LocalizedText? {
        let language = PreferredLanguages.choose(from: texts.map(\.language), preferred: languages)
        return texts.first { $0.language == language }
    }
}
