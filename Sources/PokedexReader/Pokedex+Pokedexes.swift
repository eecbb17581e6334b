import PokeSQLite

extension Pokedex {
    /// Every pokedex, by id, with its description in the first of `languages` that has
    /// one (else English): what a pokedex picker shows.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func pokedexes(languages: [String] = PreferredLanguages.system) throws -> [PokedexInfo] {
        try read { database in
            let rows = try database.rows("""
                SELECT d.id, d.name, d.region, d.is_main_series,
                       (SELECT count(*) FROM pokedex_entry e WHERE e.pokedex_id = d.id)
                FROM pokedex d ORDER BY d.id
                """) { ($0.int(0), $0.text(1), $0.optionalText(2), $0.int(3) != 0, $0.int(4)) }
            return try rows.map { row in
                let descriptions = try database.rows(
                    "SELECT language, description FROM pokedex_description WHERE pokedex_id = ? AND description IS NOT NULL",
                    [.integer(Int64(row.0))]) { LocalizedText(text: $0.text(1), language: $0.text(0)) }
                let chosen = PreferredLanguages.choose(from: descriptions.map(\.language), preferred: languages)
                return PokedexInfo(id: row.0, name: row.1, region: row.2, isMainSeries: row.3,
                                   description: descriptions.first { $0.language == chosen }, entryCount: row.4)
            }
        }
    }

    /// A page of a pokedex's entries in entry order, each with its species' default pokemon.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func entries(ofPokedex pokedexID: Int, offset: Int = 0, limit: Int = 20) throws -> [PokedexEntry] {
        try read { database in
            let rows = try database.rows("""
                SELECT e.entry_number, e.species_id, s.name, p.id, p.name
                FROM pokedex_entry e
                LEFT JOIN species s ON s.id = e.species_id
                LEFT JOIN pokemon p ON p.species_id = e.species_id AND p.is_default = 1
                WHERE e.pokedex_id = ? ORDER BY e.entry_number LIMIT ? OFFSET ?
                """, [.integer(Int64(pokedexID)), .integer(Int64(max(limit, 0))), .integer(Int64(max(offset, 0)))]) {
                ($0.int(0), $0.int(1), $0.optionalText(2), $0.optionalInt(3), $0.optionalText(4))
            }
            return try rows.map { row in
                var pokemon: PokemonSummary?
                if let id = row.3, let name = row.4 { pokemon = try Self.summary(id: id, name: name, in: database) }
                return PokedexEntry(entryNumber: row.0, speciesID: row.1, speciesName: row.2, pokemon: pokemon)
            }
        }
    }

    /// How many entries a pokedex lists (0 for an unknown pokedex).
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when the query fails.
    public func entryCount(ofPokedex pokedexID: Int) throws -> Int {
        try read { try $0.integer("SELECT count(*) FROM pokedex_entry WHERE pokedex_id = ?", [.integer(Int64(pokedexID))]) ?? 0 }
    }
}
