import PokeSQLite

extension Pokedex {
    /// The evolution chain `id` as a tree from its root species; nil when there is none.
    /// Node names are in the first of `languages` the data has, else English.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func evolutionChain(id: Int, languages: [String] = PreferredLanguages.system) throws -> EvolutionNode? {
        try read { database in try Self.evolutionChain(id: id, languages: languages, in: database) }
    }

    /// The rows a chain is read from, every declared column, by name into the nodes.
    private static let chainRow = DeclaredRow.Query(.evolutionChain)
    private static let stepRows = DeclaredRow.Query(.evolutionStep, orderedBy: ["to_species_id"])
    private static let speciesRow = DeclaredRow.Query(.species)
    private static let defaultPokemon = DeclaredRow.Query(.pokemon, by: "species_id", orderedBy: ["is_default DESC", "id"])

    static func evolutionChain(id: Int, languages: [String], in database: Database) throws -> EvolutionNode? {
        let key = SQLValue.integer(Int64(id))
        guard let root = try chainRow.row(key, in: database)?.optionalInt("root_species_id") else { return nil }
        let steps = try stepRows.rows(key, in: database)
        let children = Dictionary(grouping: steps, by: { $0.optionalInt("from_species_id") ?? root })
        var visited: Set<Int> = []
        // Each node is the step into it (the root's, a row of NULLs), its species' columns by name.
        func node(_ speciesID: Int, step: DeclaredRow) throws -> EvolutionNode {
            visited.insert(speciesID)
            // A cycle would be bad data; stop at a species already placed rather than loop.
            let next = (children[speciesID] ?? []).compactMap { step in step.optionalInt("to_species_id").map { (step, $0) } }
                .filter { !visited.contains($0.1) && $0.1 != root }
            let kids = try next.map { try node($0.1, step: $0.0) }
            return try makeNode(speciesID: speciesID, step: step, children: kids, languages: languages, in: database)
        }
        return try node(root, step: stepRows.absent)
    }

    private static func makeNode(speciesID: Int, step: DeclaredRow, children: [EvolutionNode], languages: [String],
                                 in database: Database) throws -> EvolutionNode {
        let key = SQLValue.integer(Int64(speciesID))
        let name = try speciesRow.row(key, in: database)?.optionalText("name")
        let names = try database.rows(
            "SELECT language, name FROM species_name WHERE species_id = ? AND name IS NOT NULL", [key]) {
            LocalizedText(text: $0.text(1), language: $0.text(0))
        }
        let pokemon = try defaultPokemon.row(key, in: database).flatMap { $0.optionalInt("is_default") == 1 ? $0 : nil }
        return step.model(EvolutionNode.self, parts: [
            "speciesID": speciesID, "speciesName": name as Any, "localizedName": choose(names, languages) as Any,
            "defaultPokemonID": pokemon?.optionalInt("id") as Any, "defaultPokemonName": pokemon?.optionalText("name") as Any,
            "children": children,
        ])
    }
}
