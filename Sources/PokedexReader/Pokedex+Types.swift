import Foundation
import PokeSQLite

/// Types, the type matchup chart and the pokemon of a type (<doc:PokedexReader/Reader#Types-and-matchups>).
extension Pokedex {
    /// Every type with its name in the first of `languages` the data has, else English,
    /// in id order.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func types(languages: [String] = PreferredLanguages.system) throws -> [PokemonType] {
        try read { database in try Self.allTypes(languages: languages, in: database) }
    }

    /// The damage factor of `attacking` against a pokemon of the `defending` types (one
    /// or two slugs): the product of the `type_efficacy` factors, 1 where there is no row.
    /// One of 0, 0.25, 0.5, 1, 2, 4 for two types.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func damageFactor(attacking: String, defending: [String]) throws -> Double {
        try read { database in
            var factor = 1.0
            for defender in defending {
                let percent = try database.integer("""
                    SELECT e.factor FROM type_efficacy e JOIN type a ON a.id = e.attacking_type_id
                    JOIN type d ON d.id = e.defending_type_id WHERE a.name = ? AND d.name = ?
                    """, [.text(attacking), .text(defender)])
                factor *= Double(percent ?? 100) / 100
            }
            return factor
        }
    }

    /// The defensive chart of the pokemon with `id`: every attacking type (those the
    /// matchup table names) with its factor against the pokemon's types. Nil when there
    /// is no such pokemon.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func typeDefense(pokemonID id: Int, languages: [String] = PreferredLanguages.system) throws -> TypeDefense? {
        try read { database in try Self.typeDefense(pokemonID: id, languages: languages, in: database) }
    }

    /// A page of the pokemon of one type (by slug, any slot), by id.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func pokemon(ofType type: String, offset: Int = 0, limit: Int = 20) throws -> [PokemonSummary] {
        try read { database in
            let ids = try database.rows("""
                SELECT p.id FROM pokemon p
                WHERE p.id IN (SELECT pokemon_id FROM pokemon_type WHERE type = ?) ORDER BY p.id LIMIT ? OFFSET ?
                """, [.text(type), .integer(Int64(max(limit, 0))), .integer(Int64(max(offset, 0)))]) { $0.int(0) }
            let summaries = try Self.summaries(ids: ids, in: database)
            return ids.compactMap { summaries[$0] }
        }
    }

    /// How many pokemon have `type` in any slot.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func pokemonCount(ofType type: String) throws -> Int {
        try read { database in
            try database.integer("SELECT COUNT(DISTINCT pokemon_id) FROM pokemon_type WHERE type = ?", [.text(type)]) ?? 0
        }
    }

    /// Every `type` row in id order, every declared column, by name into the model.
    private static let typeRows = DeclaredRow.Query(.type, orderedBy: ["id"])

    static func allTypes(languages: [String], in database: Database) throws -> [PokemonType] {
        let names = try database.rows("SELECT type_id, language, name FROM type_name", []) {
            ($0.int(0), LocalizedText(text: $0.text(2), language: $0.text(1)))
        }
        let byType = Dictionary(grouping: names, by: \.0).mapValues { $0.map(\.1) }
        return try typeRows.all(in: database).models(PokemonType.self) { row in
            ["localizedName": choose(byType[row.optionalInt("id") ?? 0] ?? [], languages) as Any]
        }
    }

    static func typeDefense(pokemonID id: Int, languages: [String], in database: Database) throws -> TypeDefense? {
        let defending = try database.rows("""
            SELECT t.id FROM pokemon_type pt JOIN type t ON t.name = pt.type WHERE pt.pokemon_id = ? ORDER BY pt.slot
            """, [.integer(Int64(id))]) { $0.int(0) }
        guard try database.integer("SELECT COUNT(*) FROM pokemon WHERE id = ?", [.integer(Int64(id))]) == 1 else { return nil }
        var percents: [Int: [Int: Int]] = [:]  // attacking -> defending -> factor
        for (attacking, defender, factor) in try database.rows(
            "SELECT attacking_type_id, defending_type_id, factor FROM type_efficacy", [], { ($0.int(0), $0.int(1), $0.int(2)) }) {
            percents[attacking, default: [:]][defender] = factor
        }
        let inChart = try Set(database.rows("""
            SELECT attacking_type_id FROM type_efficacy UNION SELECT defending_type_id FROM type_efficacy
            """, []) { $0.int(0) })
        let factors = try allTypes(languages: languages, in: database).filter { inChart.contains($0.id) }.map { type in
            TypeFactor(type: type, factor: defending.reduce(1.0) { $0 * Double(percents[type.id]?[$1] ?? 100) / 100 })
        }
        return TypeDefense(factors: factors)
    }

    /// Type slugs in slot order for many pokemon, in one query.
    static func typesByPokemon(_ ids: [Int], in database: Database) throws -> [Int: [String]] {
        guard !ids.isEmpty else { return [:] }
        let marks = ids.map { _ in "?" }.joined(separator: ", ")
        var types: [Int: [String]] = [:]
        for (id, type) in try database.rows(
            "SELECT pokemon_id, type FROM pokemon_type WHERE pokemon_id IN (\(marks)) ORDER BY pokemon_id, slot",
            ids.map { .integer(Int64($0)) }, { ($0.int(0), $0.text(1)) }) {
            types[id, default: []].append(type)
        }
        return types
    }
}
