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

    /// The rows the lists are read from, every declared column, by name into the models.
    private static let typesInSlots = DeclaredRow.Query(.type, through: .pokemonType, linking: ("type", "name"),
                                                        by: "pokemon_id", orderedBy: ["slot"])
    private static let abilitySlots = DeclaredRow.Query(.pokemonAbility, orderedBy: ["slot"])
    private static let movesBySlug = DeclaredRow.Query(.move, through: .pokemonMove, linking: ("move", "name"),
                                                       by: "pokemon_id", orderedBy: ["move"])

    static func localizedTypes(pokemonID id: Int, languages: [String], in database: Database) throws -> [PokemonType] {
        let key = SQLValue.integer(Int64(id))
        let names = try localizedNames("""
            SELECT t.name, n.language, n.name FROM pokemon_type pt JOIN type t ON t.name = pt.type
            JOIN type_name n ON n.type_id = t.id WHERE pt.pokemon_id = ?
            """, [key], languages, in: database)
        // A type the bundle does not describe keeps its slug, with id 0 and no generation.
        return try typesInSlots.rows(key, in: database).models(PokemonType.self) { row in
            let slug = row.linkValue ?? ""
            return ["name": slug, "localizedName": names[slug] as Any]
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
        return try abilitySlots.rows(key, in: database).models(PokemonAbility.self, columns: ["name": "ability"]) { row in
            let name = row.optionalText("ability") ?? ""
            return ["localizedName": names[name] as Any, "shortEffect": text(name) { $0.2 } as Any,
                    "flavorText": text(name) { $0.3 } as Any]
        }
    }

    static func localizedMoves(pokemonID id: Int, languages: [String], in database: Database) throws -> [PokemonMove] {
        let key = SQLValue.integer(Int64(id))
        // A move the bundle does not describe (a small sample's) is a row of NULLs with its slug.
        let moves = try movesBySlug.rows(key, in: database)
        let typeNames = try Dictionary(database.rows("SELECT id, name FROM type", []) { ($0.int(0), $0.text(1)) },
                                       uniquingKeysWith: { first, _ in first })
        // Only the languages that can be chosen: a pokemon may have 375 moves in 11 languages.
        // The API's codes are lowercase, so `language IN (...)` is a key lookup a move.
        let wanted = Array(Set((languages + ["en"]).map { $0.lowercased() })).sorted()
        let marks = wanted.map { _ in "?" }.joined(separator: ", ")
        // Names by the move ids just read: a key lookup each, no second walk through the slugs.
        let ids = moves.compactMap { $0.optionalInt("id") }
        var names: [Int: LocalizedText] = [:]
        if !ids.isEmpty {
            // Each move's name in the first preferred language it has (what `choose` picks),
            // kept as the rows come: no list of a move's names to build and search.
            let order = languages + ["en"]
            var ranks: [Int: Int] = [:]
            _ = try database.rows("""
                SELECT move_id, language, name FROM move_name
                WHERE move_id IN (\(ids.map { _ in "?" }.joined(separator: ", "))) AND language IN (\(marks))
                """, ids.map { .integer(Int64($0)) } + wanted.map { .text($0) }) { row in
                let (id, language) = (row.int(0), row.text(1))
                guard let rank = order.firstIndex(where: { PreferredLanguages.sameCode($0, language) }),
                      rank < ranks[id, default: .max] else { return }
                ranks[id] = rank
                names[id] = LocalizedText(text: row.text(2), language: language)
            }
        }
        return moves.models(PokemonMove.self) { row in
            ["name": row.linkValue ?? "", "localizedName": row.optionalInt("id").flatMap { names[$0] } as Any,
             "type": row.optionalInt("type_id").flatMap { typeNames[$0] } as Any]
        }
    }
}
