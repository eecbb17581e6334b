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
        let sql = "SELECT p.id, p.name, \(Thumbnail.sqlExpression) FROM pokemon p ORDER BY \(orderBy) LIMIT ? OFFSET ?"
        return try read { database in
            let rows = try database.rows(sql, [.integer(Int64(max(limit, 0))), .integer(Int64(max(offset, 0)))]) {
                ($0.int(0), $0.text(1), $0.optionalText(2))
            }
            return try rows.map { row in
                PokemonSummary(id: row.0, name: row.1, types: try Self.types(of: row.0, in: database), thumbnail: row.2)
            }
        }
    }

    /// One pokemon's list row, by id; nil when there is no such pokemon.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func summary(id: Int) throws -> PokemonSummary? {
        try read { database in
            guard let name = try database.row("SELECT name FROM pokemon WHERE id = ?", [.integer(Int64(id))], { $0.text(0) })
            else { return nil }
            return try Self.summary(id: id, name: name, in: database)
        }
    }

    /// Builds a summary: types in slot order and the thumbnail.
    static func summary(id: Int, name: String, in database: Database) throws -> PokemonSummary {
        let thumbnail = try database.row("SELECT \(Thumbnail.sqlExpression) FROM pokemon p WHERE p.id = ?",
                                         [.integer(Int64(id))]) { $0.optionalText(0) } ?? nil
        return PokemonSummary(id: id, name: name, types: try types(of: id, in: database), thumbnail: thumbnail)
    }

    /// A pokemon's type slugs in slot order.
    static func types(of id: Int, in database: Database) throws -> [String] {
        try database.rows("SELECT type FROM pokemon_type WHERE pokemon_id = ? ORDER BY slot", [.integer(Int64(id))]) {
            $0.text(0)
        }
    }
}
