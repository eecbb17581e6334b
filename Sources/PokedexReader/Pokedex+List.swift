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
        let sql = "SELECT p.id, p.name FROM pokemon p ORDER BY \(orderBy) LIMIT ? OFFSET ?"
        return try read { database in
            let rows = try database.rows(sql, [.integer(Int64(max(limit, 0))), .integer(Int64(max(offset, 0)))]) {
                ($0.int(0), $0.text(1))
            }
            return try rows.map { try Self.summary(id: $0.0, name: $0.1, in: database) }
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

    /// Builds a summary: types in slot order and the thumbnail, each one cached statement.
    static func summary(id: Int, name: String, in database: Database) throws -> PokemonSummary {
        let key = SQLValue.integer(Int64(id))
        let types = try database.rows("SELECT type FROM pokemon_type WHERE pokemon_id = ? ORDER BY slot", [key]) {
            $0.text(0)
        }
        return PokemonSummary(id: id, name: name, types: types, thumbnail: try thumbnail(of: id, in: database))
    }

    /// The first bundled sprite among ``Thumbnail/keys``: three primary-key lookups.
    static func thumbnail(of id: Int, in database: Database) throws -> String? {
        let keys = Thumbnail.keys
        let sql = """
            SELECT path FROM pokemon_sprite
            WHERE pokemon_id = ? AND key IN (?, ?, ?) AND path IS NOT NULL
            ORDER BY CASE key WHEN ? THEN 0 WHEN ? THEN 1 ELSE 2 END LIMIT 1
            """
        let arguments: [SQLValue] = [.integer(Int64(id))] + (keys + keys.prefix(2)).map { .text($0) }
        return try database.row(sql, arguments) { $0.text(0) }
    }
}
