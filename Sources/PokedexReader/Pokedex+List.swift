import PokeSQLite

extension Pokedex {
    /// How many pokemon the database holds (forms included).
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when the query fails.
    public func pokemonCount() throws -> Int {
        try read { try $0.integer("SELECT count(*) FROM pokemon") ?? 0 }
    }

    /// A page of the list: `limit` pokemon from `offset`, in `order`.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func list(offset: Int = 0, limit: Int = 20, sortedBy order: PokemonSortOrder = .id) throws -> [PokemonSummary] {
        let orderBy = switch order {
        case .id: "p.id"
        case .name: "p.name, p.id"
        // The first type by slot; a pokemon without types sorts first rather than vanishing.
        case .type: "(SELECT t.type FROM pokemon_type t WHERE t.pokemon_id = p.id ORDER BY t.slot LIMIT 1), p.id"
        }
        return try read { database in
            let ids = try database.rows("SELECT p.id FROM pokemon p ORDER BY \(orderBy) LIMIT ? OFFSET ?",
                                        [.integer(Int64(max(limit, 0))), .integer(Int64(max(offset, 0)))]) { $0.int(0) }
            let summaries = try Self.summaries(ids: ids, in: database)
            return ids.compactMap { summaries[$0] }
        }
    }

    /// One pokemon's list row, by id; nil when there is no such pokemon.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func summary(id: Int) throws -> PokemonSummary? {
        try read { database in try Self.summaries(ids: [id], in: database)[id] }
    }

    /// The `pokemon` rows a summary is read from, every declared column, by name into the model.
    private static let pokemonRows = DeclaredRow.Query(.pokemon, orderedBy: ["id"])

    /// The summaries of the pokemon with `ids` (those that exist), in three statements:
    /// the rows, their types, their thumbnails.
    static func summaries(ids: [Int], in database: Database) throws -> [Int: PokemonSummary] {
        let keys = ids.map { SQLValue.integer(Int64($0)) }
        let rows = try pokemonRows.rows(in: keys, in: database)
        guard !rows.isEmpty else { return [:] }
        let thumbnails = try Dictionary(database.rows("""
            SELECT p.id, \(Thumbnail.sqlExpression) FROM pokemon p WHERE p.id IN (\(keys.map { _ in "?" }.joined(separator: ", ")))
            """, keys) { ($0.int(0), $0.optionalText(1)) }, uniquingKeysWith: { first, _ in first })
        let models = summaries(rows, types: try typesByPokemon(ids, in: database), thumbnails: thumbnails)
        return Dictionary(models.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every pokemon's summary, in id order (what search lists).
    static func allSummaries(in database: Database) throws -> [PokemonSummary] {
        var types: [Int: [String]] = [:]
        for (id, type) in try database.rows("SELECT pokemon_id, type FROM pokemon_type ORDER BY pokemon_id, slot", [],
                                            { ($0.int(0), $0.text(1)) }) {
            types[id, default: []].append(type)
        }
        let thumbnails = try Dictionary(database.rows("SELECT p.id, \(Thumbnail.sqlExpression) FROM pokemon p", []) {
            ($0.int(0), $0.optionalText(1))
        }, uniquingKeysWith: { first, _ in first })
        return summaries(try pokemonRows.all(in: database), types: types, thumbnails: thumbnails)
    }

    /// Summaries from `pokemon` rows, in their order: the columns by property name, types
    /// and thumbnail given.
    private static func summaries(_ rows: [DeclaredRow], types: [Int: [String]],
                                  thumbnails: [Int: String?]) -> [PokemonSummary] {
        rows.models(PokemonSummary.self) { row in
            let id = row.optionalInt("id") ?? 0
            return ["types": types[id] ?? [], "thumbnail": (thumbnails[id] ?? nil) as Any]
        }
    }
}
