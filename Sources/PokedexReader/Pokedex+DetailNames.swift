import Foundation
import PokeSQLite

/// The localized names and texts of a detail page's types, abilities, moves and stats:
/// one query per list (never one per row), each joining the reference tables by slug.
/// A slug the bundle does not describe (a move left out of a small sample, say) keeps
/// its slug and gets no name.
extension Pokedex {
    /// `key -> name` in the first of `languages` present, else English, from rows
    /// `(key, language, text)` of `sql`.
    static func localizedNames(_ sql: String, _ arguments: [SQLValue], _ languages: [String],
                               in database: Database) throws -> [String: LocalizedText] {
        let rows = try database.rows(sql, arguments) { ($0.text(0), LocalizedText(text: $0.text(2), language: $0.text(1))) }
        return Dictionary(grouping: rows, by: \.0).compactMapValues { choose($0.map(\.1), languages) }
    }

    static func localizedTypes(pokemonID id: Int, languages: [String], in database: Database) throws -> [PokemonType] {
        let key = SQLValue.integer(Int64(id))
        let names = try localizedNames("""
            SELECT t.name, n.language, n.name FROM pokemon_type pt JOIN type t ON t.name = pt.type
            JOIN type_name n ON n.type_id = t.id WHERE pt.pokemon_id = ?
            """, [key], languages, in: database)
        return try database.rows("""
            SELECT pt.type, t.id, t.generation FROM pokemon_type pt LEFT JOIN type t ON t.name = pt.type
            WHERE pt.pokemon_id = ? ORDER BY pt.slot
            """, [key]) {
            PokemonType(id: $0.optionalInt(1) ?? 0, name: $0.text(0), localizedName: names[$0.text(0)],
                        generation: $0.optionalText(2))
        }
    }

    static func localizedAbilities(pokemonID id: Int, languages: [String], in database: Database) throws -> [PokemonAbility] {
        let key = SQLValue.integer(Int64(id))
        let names = try localizedNames("""
            SELECT a.name, n.language, n.name FROM pokemon_ability pa JOIN ability a ON a.name = pa.ability
            JOIN ability_name n ON n.ability_id = a.id WHERE pa.pokemon_id = ?
            """, [key], languages, in: database)
        let texts = try database.rows("""
            SELECT a.name, t.language, t.short_effect, t.flavor_text FROM pokemon_ability pa
            JOIN ability a ON a.name = pa.ability JOIN ability_text t ON t.ability_id = a.id WHERE pa.pokemon_id = ?
            """, [key]) { ($0.text(0), $0.text(1), $0.optionalText(2), $0.optionalText(3)) }
        let byAbility = Dictionary(grouping: texts, by: \.0)
        func text(_ ability: String, _ pick: ((String, String, String?, String?)) -> String?) -> LocalizedText? {
            choose((byAbility[ability] ?? []).compactMap { row in pick(row).map { LocalizedText(text: $0, language: row.1) } },
                   languages)
        }
        return try database.rows("SELECT ability, slot, is_hidden FROM pokemon_ability WHERE pokemon_id = ? ORDER BY slot",
                                 [key]) {
            let name = $0.text(0)
            return PokemonAbility(name: name, slot: $0.int(1), isHidden: $0.int(2) != 0, localizedName: names[name],
                                  shortEffect: text(name) { $0.2 }, flavorText: text(name) { $0.3 })
        }
    }

    static func localizedMoves(pokemonID id: Int, languages: [String], in database: Database) throws -> [PokemonMove] {
        let key = SQLValue.integer(Int64(id))
        // Only the languages that can be chosen: a pokemon may have 375 moves in 11 languages.
        // The API's codes are lowercase, so `language IN (...)` is a key lookup a move.
        let wanted = Array(Set((languages + ["en"]).map { $0.lowercased() })).sorted()
        let marks = wanted.map { _ in "?" }.joined(separator: ", ")
        let facts = try database.rows("""
            SELECT pm.move, t.name, m.damage_class, m.power, m.accuracy, m.pp, m.id FROM pokemon_move pm
            LEFT JOIN move m ON m.name = pm.move LEFT JOIN type t ON t.id = m.type_id
            WHERE pm.pokemon_id = ? ORDER BY pm.move
            """, [key]) { ($0.text(0), $0.optionalText(1), $0.optionalText(2), $0.optionalInt(3), $0.optionalInt(4),
                          $0.optionalInt(5), $0.optionalInt(6)) }
        // Names by the move ids just read: a key lookup each, no second walk through the slugs.
        let ids = facts.compactMap(\.6)
        var names: [Int: LocalizedText] = [:]
        if !ids.isEmpty {
            let rows = try database.rows("""
                SELECT move_id, language, name FROM move_name
                WHERE move_id IN (\(ids.map { _ in "?" }.joined(separator: ", "))) AND language IN (\(marks))
                """, ids.map { .integer(Int64($0)) } + wanted.map { .text($0) }) {
                ($0.int(0), LocalizedText(text: $0.text(2), language: $0.text(1)))
            }
            names = Dictionary(grouping: rows, by: \.0).compactMapValues { choose($0.map(\.1), languages) }
        }
        return facts.map {
            PokemonMove(name: $0.0, localizedName: $0.6.flatMap { names[$0] }, type: $0.1, damageClass: $0.2, power: $0.3,
                        accuracy: $0.4, pp: $0.5)
        }
    }
}
