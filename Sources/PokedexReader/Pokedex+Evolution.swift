import PokeSQLite

extension Pokedex {
    /// The evolution chain `id` (``SpeciesDetail/evolutionChainID``) as a tree from its
    /// root species; nil when there is none. Node names are in the first of `languages`
    /// the data has, else English (nil: the `Pokedex`'s languages).
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read (a step's
    ///   `details_json` that is not a JSON array of conditions, say).
    public func evolutionChain(id: Int, languages: [String]? = nil) throws -> EvolutionNode? {
        let languages = languages ?? self.languages
        return try read { database in try Self.evolutionChain(id: id, languages: languages, in: database) }
    }

    static let chainRoot = ReadQuery(.evolutionChain, ["root_species_id"], "WHERE id = ?")
    static let stepRows = ReadQuery(.evolutionStep, EvolutionStep.columns, "WHERE chain_id = ? ORDER BY to_species_id")
    static let nodeSpecies = ReadQuery(.species, ["name"], "WHERE id IN (?*)")
    static let nodeNames = ReadQuery(.speciesName, ["language", "name"], "WHERE species_id IN (?*) AND name IS NOT NULL")
    /// Each species' default pokemon: the lowest id among its `is_default` pokemon.
    static let nodePokemon = ReadQuery(.pokemon, ["name", "species_id"], also: [.expression("min(id) AS first_id")],
                                       "WHERE species_id IN (?*) AND is_default = 1 GROUP BY species_id")

    static func evolutionChain(id: Int, languages: [String], in database: Database) throws -> EvolutionNode? {
        let key = SQLValue.integer(Int64(id))
        guard let root = try database.record(chainRoot, [key], { try $0.int("root_species_id") }) else { return nil }
        let steps = try database.records(stepRows, [key], EvolutionStep.init(row:))
        // The species of the whole tree in three statements: slugs, names, default pokemon.
        let speciesIDs = [root] + steps.map(\.toSpeciesID)
        let keys = speciesIDs.map { SQLValue.integer(Int64($0)) }
        let slugs = try Dictionary(database.records(nodeSpecies, keys, lists: [keys.count]) { (try $0.int("id"), try $0.text("name")) },
                                   uniquingKeysWith: { first, _ in first })
        var names: [Int: [LocalizedText]] = [:]
        _ = try database.records(nodeNames, keys, lists: [keys.count]) { row in
            names[try row.int("species_id"), default: []].append(LocalizedText(text: try row.text("name"), language: try row.text("language")))
        }
        let pokemon = try Dictionary(database.records(nodePokemon, keys, lists: [keys.count]) { row in
            (try row.int("species_id"), (id: try row.int("first_id"), name: try row.text("name")))
        }, uniquingKeysWith: { first, _ in first })
        let children = Dictionary(grouping: steps, by: \.fromSpeciesID)
        var visited: Set<Int> = []
        func node(_ speciesID: Int, step: EvolutionStep?) -> EvolutionNode {
            visited.insert(speciesID)
            // A cycle would be bad data; stop at a species already placed rather than loop.
            let next = (children[speciesID] ?? []).filter { !visited.contains($0.toSpeciesID) && $0.toSpeciesID != root }
            let kids = next.map { node($0.toSpeciesID, step: $0) }
            return EvolutionNode(speciesID: speciesID, speciesName: slugs[speciesID],
                                 localizedName: choose(names[speciesID] ?? [], languages),
                                 defaultPokemon: pokemon[speciesID], step: step, children: kids)
        }
        return node(root, step: nil)
    }
}
