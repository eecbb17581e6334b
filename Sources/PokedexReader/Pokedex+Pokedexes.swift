import PokeSQLite

extension Pokedex {
    /// The rows pokedexes are read from, every declared column, by name into the models.
    private static let pokedexRows = DeclaredRow.Query(.pokedex, orderedBy: ["id"])
    private static let entryRows = DeclaredRow.Query(.pokedexEntry, orderedBy: ["entry_number"])
    private static let descriptionRows = DeclaredRow.Query(.pokedexDescription)
    private static let speciesRows = DeclaredRow.Query(.species)

    /// Every pokedex, by id, with its description in the first of `languages` that has
    /// one (else English): what a pokedex picker shows.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func pokedexes(languages: [String] = PreferredLanguages.system) throws -> [PokedexInfo] {
        try read { database in
            let counts = try Dictionary(database.rows("SELECT pokedex_id, count(*) FROM pokedex_entry GROUP BY pokedex_id", []) {
                ($0.int(0), $0.int(1))
            }, uniquingKeysWith: { first, _ in first })
            return try Self.pokedexRows.all(in: database).map { row in
                let id = row.optionalInt("id") ?? 0
                let descriptions = try Self.descriptionRows.rows(.integer(Int64(id)), in: database).compactMap { row in
                    row.optionalText("description").map { LocalizedText(text: $0, language: row.optionalText("language") ?? "") }
                }
                let chosen = PreferredLanguages.choose(from: descriptions.map(\.language), preferred: languages)
                return row.model(PokedexInfo.self, parts: [
                    "description": descriptions.first { $0.language == chosen } as Any, "entryCount": counts[id] ?? 0,
                ])
            }
        }
    }

    /// A page of a pokedex's entries in entry order, each with its species' default pokemon.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func entries(ofPokedex pokedexID: Int, offset: Int = 0, limit: Int = 20) throws -> [PokedexEntry] {
        try read { database in
            let rows = try Self.entryRows.rows(.integer(Int64(pokedexID)), in: database, page: (limit, offset))
            let speciesIDs = rows.compactMap { $0.optionalInt("species_id") }
            let species = try Dictionary(Self.speciesRows.rows(in: speciesIDs.map { .integer(Int64($0)) }, in: database).map {
                ($0.optionalInt("id") ?? 0, $0.optionalText("name"))
            }, uniquingKeysWith: { first, _ in first })
            let pokemonIDs = speciesIDs.isEmpty ? [:] : try Dictionary(database.rows("""
                SELECT species_id, min(id) FROM pokemon WHERE is_default = 1
                AND species_id IN (\(speciesIDs.map { _ in "?" }.joined(separator: ", "))) GROUP BY species_id
                """, speciesIDs.map { .integer(Int64($0)) }) { ($0.int(0), $0.int(1)) }, uniquingKeysWith: { first, _ in first })
            let summaries = try Self.summaries(ids: Array(pokemonIDs.values), in: database)
            return rows.models(PokedexEntry.self) { row in
                let speciesID = row.optionalInt("species_id") ?? 0
                return ["speciesName": (species[speciesID] ?? nil) as Any,
                        "pokemon": pokemonIDs[speciesID].flatMap { summaries[$0] } as Any]
            }
        }
    }

    /// How many entries a pokedex lists (0 for an unknown pokedex).
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when the query fails.
    public func entryCount(ofPokedex pokedexID: Int) throws -> Int {
        try read { try $0.integer("SELECT count(*) FROM pokedex_entry WHERE pokedex_id = ?", [.integer(Int64(pokedexID))]) ?? 0 }
    }
}
