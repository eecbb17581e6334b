import PokeSQLite

extension Pokedex {
    /// How many pokemon the database holds (forms included).
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when the query fails.
    public func pokemonCount() throws -> Int {
        try read { try $0.integer("SELECT count(*) FROM pokemon") ?? 0 }
    }

    /// A page of the list: `limit` pokemon from `offset`, in `order`, each with its
    /// species' name in the first of `languages` the data has (nil: the `Pokedex`'s).
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read.
    public func list(offset: Int = 0, limit: Int = 20, sortedBy order: PokemonSortOrder = .id,
                     languages: [String]? = nil) throws -> [PokemonSummary] {
        let languages = languages ?? self.languages
        return try read { database in
            let ids = try database.records(Self.pageIDs[order]!, [.integer(Int64(max(limit, 0))), .integer(Int64(max(offset, 0)))]) {
                try $0.int("id")
            }
            let summaries = try Self.summaries(ids: ids, languages: languages, in: database)
            return ids.compactMap { summaries[$0] }
        }
    }

    /// One pokemon's list row, by id; nil when there is no such pokemon.
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read.
    public func summary(id: Int, languages: [String]? = nil) throws -> PokemonSummary? {
        let languages = languages ?? self.languages
        return try read { database in try Self.summaries(ids: [id], languages: languages, in: database)[id] }
    }

    /// A page's ids in each order.
    static let pageIDs: [PokemonSortOrder: ReadQuery] = Dictionary(uniqueKeysWithValues: PokemonSortOrder.allCases.map { order in
        let orderBy = switch order {
        case .id: "p.id"
        case .name: "p.name, p.id"
        // The first type by slot; a pokemon without types sorts first rather than vanishing.
        case .type: "(SELECT t.type FROM pokemon_type t WHERE t.pokemon_id = p.id ORDER BY t.slot LIMIT 1), p.id"
        }
        return (order, ReadQuery(.pokemon, as: "p", ["id"], "FROM pokemon p ORDER BY \(orderBy) LIMIT ? OFFSET ?"))
    })

    /// The statements summaries are read with: of the pokemon `(?*)`, or of every pokemon.
    struct SummaryQueries: Sendable {
        let rows: ReadQuery
        let types: ReadQuery
        let names: ReadQuery

        init(filter: String) {
            rows = ReadQuery(.pokemon, as: "p", PokemonSummary.columns, also: [.expression("\(Thumbnail.sqlExpression) AS thumbnail")],
                             "FROM pokemon p \(filter.isEmpty ? "" : "WHERE p.id \(filter)") ORDER BY p.id")
            types = ReadQuery(.pokemonType, ["type"], "\(filter.isEmpty ? "" : "WHERE pokemon_id \(filter)") ORDER BY pokemon_id, slot")
            names = ReadQuery(.speciesName, as: "n", ["language", "name"], also: [.column(.pokemon, alias: "p", "id", as: "pokemon_id")], """
                FROM pokemon p JOIN species_name n ON n.species_id = p.species_id
                WHERE \(filter.isEmpty ? "" : "p.id \(filter) AND ") n.language IN (?*) AND n.name IS NOT NULL
                """)
        }
    }
    static let pageSummaryQueries = SummaryQueries(filter: "IN (?*)")
    static let allSummaryQueries = SummaryQueries(filter: "")

    /// The summaries of the pokemon with `ids` (those that exist), in three statements:
    /// the rows with their thumbnails, their types, their species' names.
    static func summaries(ids: [Int], languages: [String], in database: Database) throws -> [Int: PokemonSummary] {
        guard !ids.isEmpty else { return [:] }
        let models = try summaries(pageSummaryQueries, keys: ids.map { SQLValue.integer(Int64($0)) }, languages: languages, in: database)
        return Dictionary(models.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every pokemon's summary, in id order (what search lists).
    static func allSummaries(languages: [String], in database: Database) throws -> [PokemonSummary] {
        try summaries(allSummaryQueries, keys: [], languages: languages, in: database)
    }

    /// Summaries by `queries`, in id order; `keys` fill their `(?*)` (none for every pokemon).
    private static func summaries(_ queries: SummaryQueries, keys: [SQLValue], languages: [String],
                                  in database: Database) throws -> [PokemonSummary] {
        let lists = keys.isEmpty ? [] : [keys.count]
        var types: [Int: [String]] = [:]
        _ = try database.records(queries.types, keys, lists: lists) { row in
            types[try row.int("pokemon_id"), default: []].append(try row.text("type"))
        }
        // Only the languages that can be chosen (the list may name 1,300 pokemon in 11 languages).
        let wanted = wantedLanguages(languages)
        var names: [Int: [LocalizedText]] = [:]
        _ = try database.records(queries.names, keys + wanted.map { .text($0) }, lists: lists + [wanted.count]) { row in
            names[try row.int("pokemon_id"), default: []].append(LocalizedText(text: try row.text("name"), language: try row.text("language")))
        }
        return try database.records(queries.rows, keys, lists: lists) { row in
            let id = try row.int("id")
            return try PokemonSummary(row: row, localizedName: choose(names[id] ?? [], languages), types: types[id] ?? [],
                                      thumbnail: try row.optionalText("thumbnail"))
        }
    }
}
