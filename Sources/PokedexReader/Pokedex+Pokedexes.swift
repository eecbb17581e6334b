import PokeSQLite

extension Pokedex {
    static let pokedexRows = ReadQuery(.pokedex, PokedexInfo.columns, "ORDER BY id")
    static let entryCounts = ReadQuery(.pokedexEntry, [], also: [.expression("count(*) AS entries")], "GROUP BY pokedex_id")
    static let descriptionRows = ReadQuery(.pokedexDescription, ["language", "description"], "WHERE pokedex_id = ?")
    static let entryRows = ReadQuery(.pokedexEntry, PokedexEntry.columns, "WHERE pokedex_id = ? ORDER BY entry_number LIMIT ? OFFSET ?")
    static let speciesSlugs = ReadQuery(.species, ["name"], "WHERE id IN (?*)")
    static let defaultPokemonIDs = ReadQuery(.pokemon, ["species_id"], also: [.expression("min(id) AS first_id")],
                                             "WHERE is_default = 1 AND species_id IN (?*) GROUP BY species_id")

    /// Every pokedex, by id, with its description in the first of `languages` that has
    /// one, else English (nil: the `Pokedex`'s): what a pokedex picker shows.
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read.
    public func pokedexes(languages: [String]? = nil) throws -> [PokedexInfo] {
        let languages = languages ?? self.languages
        return try read { database in
            let counts = try Dictionary(database.records(Self.entryCounts) { (try $0.int("pokedex_id"), try $0.int("entries")) },
                                        uniquingKeysWith: { first, _ in first })
            return try database.records(Self.pokedexRows) { row in
                let id = try row.int("id")
                let descriptions = try database.records(Self.descriptionRows, [.integer(Int64(id))]) { row in
                    LocalizedText(text: try row.text("description"), language: try row.text("language"))
                }
                return try PokedexInfo(row: row, description: Self.choose(descriptions, languages), entryCount: counts[id] ?? 0)
            }
        }
    }

    /// A page of a pokedex's entries in entry order, each with its species' default
    /// pokemon (its name in the first of `languages` the data has; nil: the `Pokedex`'s).
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read.
    public func entries(ofPokedex pokedexID: Int, offset: Int = 0, limit: Int = 20,
                        languages: [String]? = nil) throws -> [PokedexEntry] {
        let languages = languages ?? self.languages
        return try read { database in
            let page: [SQLValue] = [.integer(Int64(pokedexID)), .integer(Int64(max(limit, 0))), .integer(Int64(max(offset, 0)))]
            let speciesIDs = try database.records(Self.entryRows, page) { try $0.int("species_id") }
            let keys = speciesIDs.map { SQLValue.integer(Int64($0)) }
            let slugs = speciesIDs.isEmpty ? [:] : try Dictionary(database.records(Self.speciesSlugs, keys, lists: [keys.count]) {
                (try $0.int("id"), try $0.text("name"))
            }, uniquingKeysWith: { first, _ in first })
            let pokemonIDs = speciesIDs.isEmpty ? [:] : try Dictionary(database.records(Self.defaultPokemonIDs, keys, lists: [keys.count]) {
                (try $0.int("species_id"), try $0.int("first_id"))
            }, uniquingKeysWith: { first, _ in first })
            let summaries = try Self.summaries(ids: Array(pokemonIDs.values), languages: languages, in: database)
            return try database.records(Self.entryRows, page) { row in
                let speciesID = try row.int("species_id")
                return try PokedexEntry(row: row, speciesName: slugs[speciesID], pokemon: pokemonIDs[speciesID].flatMap { summaries[$0] })
            }
        }
    }

    /// How many entries a pokedex lists (0 for an unknown pokedex).
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when the query fails.
    public func entryCount(ofPokedex pokedexID: Int) throws -> Int {
        try read { try $0.integer("SELECT count(*) FROM pokedex_entry WHERE pokedex_id = ?", [.integer(Int64(pokedexID))]) ?? 0 }
    }
}
