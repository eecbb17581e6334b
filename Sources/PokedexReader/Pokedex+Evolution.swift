import PokeSQLite

extension Pokedex {
    /// The evolution chain `id` as a tree from its root species; nil when there is none.
    /// Node names are in the first of `languages` the data has, else English.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func evolutionChain(id: Int, languages: [String] = PreferredLanguages.system) throws -> EvolutionNode? {
        try read { database in try Self.evolutionChain(id: id, languages: languages, in: database) }
    }

    /// One evolution step as stored: the edge into `to` from its parent.
    private struct Step {
        let to: Int
        let from: Int?
        let trigger: String?
        let minLevel: Int?
        let item: String?
        let detailsJSON: String?
    }

    static func evolutionChain(id: Int, languages: [String], in database: Database) throws -> EvolutionNode? {
        let key = SQLValue.integer(Int64(id))
        guard let root = try database.row("SELECT root_species_id FROM evolution_chain WHERE id = ?", [key], { $0.optionalInt(0) }),
              let root else { return nil }
        let steps = try database.rows("""
            SELECT to_species_id, from_species_id, trigger, min_level, item, details_json
            FROM evolution_step WHERE chain_id = ? ORDER BY to_species_id
            """, [key]) {
            Step(to: $0.int(0), from: $0.optionalInt(1), trigger: $0.optionalText(2), minLevel: $0.optionalInt(3),
                 item: $0.optionalText(4), detailsJSON: $0.optionalText(5))
        }
        let children = Dictionary(grouping: steps, by: { $0.from ?? root })
        var visited: Set<Int> = []
        func node(_ speciesID: Int, step: Step?) throws -> EvolutionNode {
            visited.insert(speciesID)
            // A cycle would be bad data; stop at a species already placed rather than loop.
            let next = (children[speciesID] ?? []).filter { !visited.contains($0.to) && $0.to != root }
            let kids = try next.map { try node($0.to, step: $0) }
            return try makeNode(speciesID: speciesID, step: step, children: kids, languages: languages, in: database)
        }
        return try node(root, step: nil)
    }

    private static func makeNode(speciesID: Int, step: Step?, children: [EvolutionNode], languages: [String],
                                 in database: Database) throws -> EvolutionNode {
        let key = SQLValue.integer(Int64(speciesID))
        let name = try database.row("SELECT name FROM species WHERE id = ?", [key]) { $0.text(0) }
        let names = try database.rows(
            "SELECT language, name FROM species_name WHERE species_id = ? AND name IS NOT NULL", [key]) {
            LocalizedText(text: $0.text(1), language: $0.text(0))
        }
        let pokemon = try database.row(
            "SELECT id, name FROM pokemon WHERE species_id = ? AND is_default = 1 ORDER BY id LIMIT 1", [key]) {
            ($0.int(0), $0.text(1))
        }
        return EvolutionNode(speciesID: speciesID, speciesName: name, localizedName: choose(names, languages),
                             defaultPokemonID: pokemon?.0, defaultPokemonName: pokemon?.1, trigger: step?.trigger,
                             minLevel: step?.minLevel, item: step?.item, detailsJSON: step?.detailsJSON,
                             children: children)
    }
}
