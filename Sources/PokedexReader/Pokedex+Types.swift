import Foundation
import PokeSQLite

/// Types, the type matchup chart and the pokemon of a type (<doc:PokedexReader/Reader#Types-and-matchups>).
extension Pokedex {
    /// Every type with its name in the first of `languages` the data has, else English,
    /// in id order.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails or a value cannot be read.
    public func types(languages: [String]? = nil) throws -> [PokemonType] {
        let languages = languages ?? self.languages
        return try read { database in try Self.allTypes(languages: languages, in: database) }
    }

    /// The damage factor of `attacking` against a pokemon of the `defending` types (one
    /// or two slugs): the product of the `type_efficacy` factors, 1 where there is no row.
    /// One of 0, 0.25, 0.5, 1, 2, 4 for two types.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails or a value cannot be read.
    public func damageFactor(attacking: String, defending: [String]) throws -> Double {
        try read { database in
            var factor = 1.0
            for defender in defending {
                let percent = try database.record(Self.damagePercent, [.text(attacking), .text(defender)]) {
                    try $0.int("factor")
                }
                factor *= Double(percent ?? 100) / 100
            }
            return factor
        }
    }

    /// The defensive chart of the pokemon with `id`: every attacking type (those the
    /// matchup table names) with its factor against the pokemon's types. Nil when there
    /// is no such pokemon.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails or a value cannot be read.
    public func typeDefense(pokemonID id: Int, languages: [String]? = nil) throws -> TypeDefense? {
        let languages = languages ?? self.languages
        return try read { database in try Self.typeDefense(pokemonID: id, languages: languages, in: database) }
    }

    /// A page of the pokemon of one type (by slug, any slot), by id.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails or a value cannot be read.
    public func pokemon(ofType type: String, offset: Int = 0, limit: Int = 20,
                        languages: [String]? = nil) throws -> [PokemonSummary] {
        let languages = languages ?? self.languages
        return try read { database in
            let ids = try database.records(Self.pokemonIDsOfType,
                                           [.text(type), .integer(Int64(max(limit, 0))), .integer(Int64(max(offset, 0)))]) {
                try $0.int("id")
            }
            let summaries = try Self.summaries(ids: ids, languages: languages, in: database)
            return ids.compactMap { summaries[$0] }
        }
    }

    /// How many pokemon have `type` in any slot.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails or a value cannot be read.
    public func pokemonCount(ofType type: String) throws -> Int {
        try read { database in
            try database.integer("SELECT COUNT(DISTINCT pokemon_id) FROM pokemon_type WHERE type = ?", [.text(type)]) ?? 0
        }
    }

    static let typeRows = ReadQuery(.type, PokemonType.columns, "ORDER BY id")
    static let allTypeNames = ReadQuery(.typeName, ["language", "name"])
    static let damagePercent = ReadQuery(.typeEfficacy, as: "e", ["factor"], """
        FROM type_efficacy e JOIN "type" a ON a.id = e.attacking_type_id JOIN "type" d ON d.id = e.defending_type_id
        WHERE a.name = ? AND d.name = ?
        """)
    static let defendingTypes = ReadQuery(.type, as: "t", ["id"], """
        FROM pokemon_type pt JOIN "type" t ON t.name = pt.type WHERE pt.pokemon_id = ? ORDER BY pt.slot
        """)
    static let efficacy = ReadQuery(.typeEfficacy, ["defending_type_id", "factor"])
    static let pokemonIDsOfType = ReadQuery(.pokemon, as: "p", ["id"], """
        FROM pokemon p WHERE p.id IN (SELECT pokemon_id FROM pokemon_type WHERE type = ?) ORDER BY p.id LIMIT ? OFFSET ?
        """)

    static func allTypes(languages: [String], in database: Database) throws -> [PokemonType] {
        var names: [Int: [LocalizedText]] = [:]
        _ = try database.records(allTypeNames) { row in
            names[try row.int("type_id"), default: []].append(LocalizedText(text: try row.text("name"), language: try row.text("language")))
        }
        return try database.records(typeRows) { row in
            try PokemonType(row: row, localizedName: choose(names[try row.int("id")] ?? [], languages))
        }
    }

    static func typeDefense(pokemonID id: Int, languages: [String], in database: Database) throws -> TypeDefense? {
        let defending = try database.records(defendingTypes, [.integer(Int64(id))]) { try $0.int("id") }
        guard try database.integer("SELECT COUNT(*) FROM pokemon WHERE id = ?", [.integer(Int64(id))]) == 1 else { return nil }
        var percents: [Int: [Int: Int]] = [:]  // attacking -> defending -> factor
        _ = try database.records(efficacy) { row in
            percents[try row.int("attacking_type_id"), default: [:]][try row.int("defending_type_id")] = try row.int("factor")
        }
        // The attacking types the chart names, on either side.
        let inChart = Set(percents.keys).union(percents.values.flatMap(\.keys))
        let factors = try allTypes(languages: languages, in: database).filter { inChart.contains($0.id) }.map { type in
            TypeFactor(type: type, factor: defending.reduce(1.0) { $0 * Double(percents[type.id]?[$1] ?? 100) / 100 })
        }
        return TypeDefense(factors: factors)
    }
}
