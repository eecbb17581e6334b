import Foundation
import PokeSQLite

extension Pokedex {
    /// The detail page of the pokemon with `id`; nil when there is none.
    ///
    /// Localized texts (species name, genus, flavor text, evolution node names) are in the
    /// first of `languages` the data has, else English. Codes are the API's (`zh-hant`,
    /// `ja-hrkt`), compared case-insensitively; ``PreferredLanguages`` maps locales to them.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func pokemon(id: Int, languages: [String] = PreferredLanguages.system) throws -> PokemonDetail? {
        try read { database in try Self.detail(id: id, languages: languages, in: database) }
    }

    /// The detail page for a name: a pokemon's name first (`giratina-altered`), then a
    /// species' name, which gives its default pokemon (`giratina`). Case and surrounding
    /// spaces are ignored. Nil when neither matches.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func pokemon(named name: String, languages: [String] = PreferredLanguages.system) throws -> PokemonDetail? {
        let slug = SQLValue.text(name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
        return try read { database in
            let id = try database.integer("SELECT id FROM pokemon WHERE name = ?", [slug])
                ?? database.integer("""
                    SELECT p.id FROM species s JOIN pokemon p ON p.species_id = s.id AND p.is_default = 1
                    WHERE s.name = ? ORDER BY p.id LIMIT 1
                    """, [slug])
            guard let id else { return nil }
            return try Self.detail(id: id, languages: languages, in: database)
        }
    }

    /// ``pokemon(id:languages:)`` for an all-digit argument, else ``pokemon(named:languages:)``:
    /// what `pokesync show NAME|ID` takes.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func pokemon(nameOrID: String, languages: [String] = PreferredLanguages.system) throws -> PokemonDetail? {
        let trimmed = nameOrID.trimmingCharacters(in: .whitespacesAndNewlines)
        if let id = Int(trimmed), trimmed.allSatisfy(\.isASCII) {
            return try pokemon(id: id, languages: languages)
        }
        return try pokemon(named: trimmed, languages: languages)
    }

    /// The rows a detail page is read from, every declared column, by name into the models.
    private static let pokemonRow = DeclaredRow.Query(.pokemon)
    private static let statRows = DeclaredRow.Query(.pokemonStat)
    private static let spriteRows = DeclaredRow.Query(.pokemonSprite, orderedBy: ["key"])
    private static let speciesRow = DeclaredRow.Query(.species)
    private static let flavorTextRows = DeclaredRow.Query(.speciesFlavorText, by: ["species_id", "language"],
                                                          orderedBy: ["entry_index DESC", "version"])

    static func detail(id: Int, languages: [String], in database: Database) throws -> PokemonDetail? {
        let key = SQLValue.integer(Int64(id))
        guard let base = try pokemonRow.row(key, in: database) else { return nil }
        let localizedTypes = try localizedTypes(pokemonID: id, languages: languages, in: database)
        let abilities = try localizedAbilities(pokemonID: id, languages: languages, in: database)
        let statNames = try localizedNames("""
            SELECT s.name, n.language, n.name FROM stat s JOIN stat_name n ON n.stat_id = s.id
            WHERE s.name IN (SELECT stat FROM pokemon_stat WHERE pokemon_id = ?)
            """, [key], languages, in: database)
        let stats = try statRows.rows(key, in: database).models(PokemonStat.self, columns: ["name": "stat"]) { row in
            ["localizedName": statNames[row.optionalText("stat") ?? ""] as Any]
        }
        // A URL that does not parse (pokesync writes none) leaves its sprite out rather than the detail.
        let linked = try spriteRows.rows(key, in: database).compactMap { row in
            row.optionalText("url").flatMap(UpstreamURL.make).map { (row: row, url: $0) }
        }
        var urls = linked.map(\.url).makeIterator()
        let sprites = linked.map(\.row).models(PokemonSprite.self) { _ in ["url": urls.next() as Any] }
        let species = try base.optionalInt("species_id").flatMap { try speciesDetail(id: $0, languages: languages, in: database) }
        let moveDetails = try localizedMoves(pokemonID: id, languages: languages, in: database)
        // The `pokemon` columns by property name; the rest from the other tables.
        return base.model(PokemonDetail.self, parts: [
            "types": localizedTypes.map(\.name), "abilities": abilities,
            // The slugs in the same order (by move) as the details that carry them.
            "moves": moveDetails.map(\.name), "localizedTypes": localizedTypes,
            "moveDetails": moveDetails, "stats": stats.sorted(by: statOrder), "sprites": sprites, "species": species as Any,
        ])
    }

    /// Game order for the six stats; any other stat after them, by name.
    private static func statOrder(_ lhs: PokemonStat, _ rhs: PokemonStat) -> Bool {
        let order = ["hp", "attack", "defense", "special-attack", "special-defense", "speed"]
        let left = order.firstIndex(of: lhs.name) ?? order.count
        let right = order.firstIndex(of: rhs.name) ?? order.count
        return left != right ? left < right : lhs.name < rhs.name
    }

    static func speciesDetail(id: Int, languages: [String], in database: Database) throws -> SpeciesDetail? {
        let key = SQLValue.integer(Int64(id))
        guard let row = try speciesRow.row(key, in: database) else { return nil }
        let names = try database.rows("SELECT language, name, genus FROM species_name WHERE species_id = ?", [key]) {
            (language: $0.text(0), name: $0.optionalText(1), genus: $0.optionalText(2))
        }
        let localizedName = choose(names.compactMap { row in row.name.map { LocalizedText(text: $0, language: row.language) } },
                                   languages)
        let genus = choose(names.compactMap { row in row.genus.map { LocalizedText(text: $0, language: row.language) } },
                           languages)
        // One language's texts, newest game first: entry_index is the position in the API's
        // list, which runs in game order. (Every language's would be ten times the strings.)
        let textLanguages = try database.rows("SELECT DISTINCT language FROM species_flavor_text WHERE species_id = ?", [key]) {
            $0.text(0)
        }
        let language = PreferredLanguages.choose(from: textLanguages.sorted(), preferred: languages)
        let texts = try language.map { try flavorTextRows.rows(matching: [key, .text($0)], in: database) } ?? []
        let versionNames = try localizedNames("""
            SELECT v.name, n.language, n.name FROM version v JOIN version_name n ON n.version_id = v.id
            WHERE v.name IN (SELECT version FROM species_flavor_text WHERE species_id = ?)
            """, [key], languages, in: database)
        let chain = try row.optionalInt("evolution_chain_id").flatMap { try evolutionChain(id: $0, languages: languages, in: database) }
        // The `species` columns by property name; the rest from the other tables.
        return row.model(SpeciesDetail.self, parts: [
            "localizedName": localizedName as Any, "genus": genus as Any,
            "flavorTexts": texts.models(FlavorText.self) { text in
                ["versionName": versionNames[text.optionalText("version") ?? ""] as Any]
            }, "evolutionChain": chain as Any,
        ])
    }

    /// The text in the first preferred language present, else English, else nil.
    static func choose(_ texts: [LocalizedText], _ languages: [String]) -> LocalizedText? {
        let language = PreferredLanguages.choose(from: texts.map(\.language), preferred: languages)
        return texts.first { $0.language == language }
    }
}
