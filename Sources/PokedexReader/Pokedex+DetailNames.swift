import Foundation
import PokeSQLite

/// The localized names and texts of a detail page's types, abilities, moves and stats:
/// one query per list (never one per row), each joining the reference tables by slug.
/// A slug the bundle does not describe (a move left out of a small sample, say) keeps
/// its slug and gets no name.
extension Pokedex {
    /// `slug -> name` in the first of `languages` present, else English, from the rows
    /// (`slug`, `language`, `name`) of `query`, whose last `(?*)` takes the languages.
    static func localizedNames(_ query: ReadQuery, _ arguments: [SQLValue], _ languages: [String],
                               in database: Database) throws -> [String: LocalizedText] {
        let wanted = wantedLanguages(languages)
        let rows = try database.records(query, arguments + wanted.map { .text($0) }, lists: [wanted.count]) { row in
            (try row.text("slug"), LocalizedText(text: try row.text("name"), language: try row.text("language")))
        }
        return Dictionary(grouping: rows, by: \.0).compactMapValues { choose($0.map(\.1), languages) }
    }

    /// The codes a text may be chosen in (`languages`, then English), lowercase as the API
    /// writes them, so that `language IN (...)` is a key lookup: a name or text is read in
    /// those languages only (a detail page's moves have 11 each).
    static func wantedLanguages(_ languages: [String]) -> [String] {
        Array(Set((languages + ["en"]).map { $0.lowercased() })).sorted()
    }

    /// The same codes in the order they are preferred, each once.
    static func wantedLanguagesInOrder(_ languages: [String]) -> [String] {
        var seen: Set<String> = []
        return (languages + ["en"]).map { $0.lowercased() }.filter { seen.insert($0).inserted }
    }

    static let typesInSlots = ReadQuery(.type, as: "t", PokemonType.columns,
                                        also: [.column(.pokemonType, alias: "pt", "type", as: "slug")], """
        FROM pokemon_type pt LEFT JOIN "type" t ON t.name = pt.type WHERE pt.pokemon_id = ? ORDER BY pt.slot
        """)
    static let typeNames = ReadQuery(.typeName, as: "n", ["language", "name"], also: [.column(.type, alias: "t", "name", as: "slug")], """
        FROM pokemon_type pt JOIN "type" t ON t.name = pt.type JOIN type_name n ON n.type_id = t.id WHERE pt.pokemon_id = ?
        AND n.language IN (?*)
        """)
    static let abilitySlots = ReadQuery(.pokemonAbility, PokemonAbility.columns, "WHERE pokemon_id = ? ORDER BY slot")
    static let abilityNames = ReadQuery(.abilityName, as: "n", ["language", "name"],
                                        also: [.column(.ability, alias: "a", "name", as: "slug")], """
        FROM pokemon_ability pa JOIN ability a ON a.name = pa.ability JOIN ability_name n ON n.ability_id = a.id
        WHERE pa.pokemon_id = ? AND n.language IN (?*)
        """)
    static let abilityTexts = ReadQuery(.abilityText, as: "t", ["language", "short_effect", "flavor_text"],
                                        also: [.column(.ability, alias: "a", "name", as: "slug")], """
        FROM pokemon_ability pa JOIN ability a ON a.name = pa.ability JOIN ability_text t ON t.ability_id = a.id
        WHERE pa.pokemon_id = ?
        """)
    /// The moves with their names in one language (the first preferred), joined by key: the
    /// names of most moves come with the moves, without a second statement, a list of ids
    /// or a dictionary (a detail page's moves are the most rows it reads).
    static let movesBySlug = ReadQuery(.move, as: "m", PokemonMove.columns,
                                       also: [.column(.pokemonMove, alias: "pm", "move", as: "slug"),
                                              .column(.pokemonMove, alias: "pm", "pokemon_id", as: "pokemon_id"),
                                              .column(.type, alias: "ty", "name", as: "type_slug"),
                                              .column(.moveName, alias: "n", "name", as: "name_text")], """
        FROM pokemon_move pm LEFT JOIN move m ON m.name = pm.move LEFT JOIN "type" ty ON ty.id = m.type_id
        LEFT JOIN move_name n ON n.move_id = m.id AND n.language = ?
        WHERE pm.pokemon_id = ? ORDER BY pm.move
        """)
    static let moveNames = ReadQuery(.moveName, ["language", "name"], "WHERE move_id IN (?*) AND language = ?")

    static func localizedTypes(pokemonID id: Int, languages: [String], in database: Database) throws -> [PokemonType] {
        let key = SQLValue.integer(Int64(id))
        let names = try localizedNames(typeNames, [key], languages, in: database)
        // A type the bundle does not describe keeps its slug, with id 0 and no generation.
        return try database.records(typesInSlots, [key]) { row in
            let slug = try row.text("slug")
            guard try row.optionalInt("id") != nil else { return PokemonType(id: 0, name: slug, localizedName: nil, generation: nil) }
            return try PokemonType(row: row, localizedName: names[slug])
        }
    }

    static func localizedAbilities(pokemonID id: Int, languages: [String], in database: Database) throws -> [PokemonAbility] {
        let key = SQLValue.integer(Int64(id))
        let names = try localizedNames(abilityNames, [key], languages, in: database)
        // Each ability's texts of each kind, in every language it has them, then one chosen.
        var shortEffects: [String: [LocalizedText]] = [:], flavorTexts: [String: [LocalizedText]] = [:]
        _ = try database.records(abilityTexts, [key]) { row in
            let (ability, language) = (try row.text("slug"), try row.text("language"))
            if let text = try row.optionalText("short_effect") {
                shortEffects[ability, default: []].append(LocalizedText(text: text, language: language))
            }
            if let text = try row.optionalText("flavor_text") {
                flavorTexts[ability, default: []].append(LocalizedText(text: text, language: language))
            }
        }
        return try database.records(abilitySlots, [key]) { row in
            let name = try row.text("ability")
            return try PokemonAbility(row: row, localizedName: names[name], shortEffect: choose(shortEffects[name] ?? [], languages),
                                      flavorText: choose(flavorTexts[name] ?? [], languages))
        }
    }

    static func localizedMoves(pokemonID id: Int, languages: [String], in database: Database) throws -> [PokemonMove] {
        let key = SQLValue.integer(Int64(id))
        // Each move's name in the first of the languages it has (what `choose` picks). The
        // moves come with their names in the first language (a move the bundle does not
        // describe is a row of NULLs with its slug, and has no id); those with an id and no
        // name there are asked in the next language, and so on: usually one statement reads
        // the moves and their names. (The API's codes are lowercase: `language = ?` is a key lookup.)
        let order = wantedLanguagesInOrder(languages)
        let first = order[0]
        // The moves' ids beside them (nil for a move the bundle does not describe), by position.
        var ids: [Int?] = []
        var moves = try database.records(movesBySlug, [.text(first), key]) { row in
            ids.append(try row.optionalInt("id"))
            let name = try row.optionalText("name_text").map { LocalizedText(text: $0, language: first) }
            return try PokemonMove(slug: try row.text("slug"), row: row, localizedName: name, type: try row.optionalText("type_slug"))
        }
        var missing = moves.indices.compactMap { moves[$0].localizedName == nil ? ids[$0] : nil }
        guard !missing.isEmpty else { return moves }
        var names: [Int: LocalizedText] = [:]
        for language in order.dropFirst() where !missing.isEmpty {
            _ = try database.records(moveNames, missing.map { .integer(Int64($0)) } + [.text(language)], lists: [missing.count]) { row in
                names[try row.int("move_id")] = LocalizedText(text: try row.text("name"), language: try row.text("language"))
            }
            missing.removeAll { names[$0] != nil }
        }
        for index in moves.indices where moves[index].localizedName == nil {
            if let name = ids[index].flatMap({ names[$0] }) { moves[index] = moves[index].named(name) }
        }
        return moves
    }
}
