import PokeSQLite

/// Every pokemon's folded search strings in one byte buffer, matched in memory.
///
/// The search rule (<doc:PokedexReader/Reader#Search>) has no index-friendly shape (any term may be a substring of any
/// string), and the whole set is small (about 10,000 strings, 120 kB for 1,351 pokemon),
/// so a scan over UTF-8 bytes answers in well under a millisecond where SQL `LIKE` with
/// per-row folding would not. Byte matching equals code-point matching because both
/// sides are folded the same way and UTF-8 never matches inside a scalar.
final class SearchIndex: Sendable {
    /// The folded strings, back to back.
    let bytes: [UInt8]
    /// `stringStarts[i] ..< stringStarts[i + 1]` is string `i` in `bytes`.
    let stringStarts: [Int]
    /// Per pokemon, in id order: its summary and its strings' range in `stringStarts`.
    let entries: [Entry]

    /// Per type, its strings' range in `stringStarts` (its slug and names in every
    /// language), stored once and shared by the pokemon of the type.
    let typeStrings: [Range<Int>]

    struct Entry: Sendable {
        let summary: PokemonSummary
        let strings: Range<Int>
        /// Indexes into `typeStrings` of the pokemon's types.
        let types: [Int]
    }

    init(bytes: [UInt8], stringStarts: [Int], typeStrings: [Range<Int>], entries: [Entry]) {
        self.bytes = bytes
        self.stringStarts = stringStarts
        self.typeStrings = typeStrings
        self.entries = entries
    }

    /// Reads the search strings and list rows of every pokemon.
    ///
    /// The strings come from the builder's `pokemon_search(pokemon_id, text)` when it has
    /// that shape (already folded). Otherwise (the search tables are the builder's choice)
    /// they are made here from the logical tables with ``SearchFolding``.
    /// The list rows carry their species' name in the first of `languages` the data has.
    static func load(from database: Database, languages: [String]) throws -> SearchIndex {
        var bytes: [UInt8] = []
        var starts: [Int] = [0]
        // Per pokemon id, its strings' index range in `starts`.
        var ranges: [Int: Range<Int>] = [:]
        // <doc:PokedexReader/Reader#Search>: a pokemon's types, slugs and names in every language of the bundle, are
        // its strings too ("eau", "물"). They are made here from `type_name` rather than
        // stored per pokemon in the search table, and held once per type.
        let typeNames = try typeNameStrings(database)
        var typeIndex: [String: Int] = [:]
        var typeStrings: [Range<Int>] = []
        for (type, names) in typeNames.names.sorted(by: { $0.key < $1.key }) {
            let first = starts.count - 1
            for text in names {
                bytes.append(contentsOf: text.utf8)
                starts.append(bytes.count)
            }
            typeIndex[type] = typeStrings.count
            typeStrings.append(first ..< starts.count - 1)
        }
        func close(_ id: Int, from first: Int) {
            if starts.count - 1 > first { ranges[id] = first ..< starts.count - 1 }
        }
        if try hasPlainSearchTable(database) {
            // Rows in pokemon_id order; bytes copied straight from SQLite, no String per row.
            var current: Int?
            var first = 0
            _ = try database.records(searchRows) { row in
                let id = try row.int("pokemon_id")
                if id != current {
                    if let current { close(current, from: first) }
                    current = id
                    first = starts.count - 1
                }
                try row.withUTF8("text") { text in bytes.append(contentsOf: text) }
                if bytes.count > starts[starts.count - 1] { starts.append(bytes.count) }
            }
            if let current { close(current, from: first) }
        } else {
            var strings: [Int: [String]] = [:]
            for (query, column) in [(pokemonNames, "id"), (speciesNames, "pokemon_id")] {
                _ = try database.records(query) { row in
                    strings[try row.int(column), default: []].append(SearchFolding.fold(try row.text("name")))
                }
            }
            for (id, texts) in strings {
                let first = starts.count - 1
                for text in Set(texts) where !text.isEmpty {
                    bytes.append(contentsOf: text.utf8)
                    starts.append(bytes.count)
                }
                close(id, from: first)
            }
        }
        // Every pokemon's list row, as the list reads it.
        let entries = try Pokedex.allSummaries(languages: languages, in: database).map { summary in
            Entry(summary: summary, strings: ranges[summary.id] ?? 0 ..< 0,
                  types: (typeNames.types[summary.id] ?? []).compactMap { typeIndex[$0] })
        }
        return SearchIndex(bytes: bytes, stringStarts: starts, typeStrings: typeStrings, entries: entries)
    }

    /// Each type slug's strings (the slug and its names in every language of the
    /// database, folded and distinct), and each pokemon's type slugs. A database without
    /// `type_name` gives the slugs alone.
    private static func typeNameStrings(_ database: Database) throws -> (names: [String: [String]], types: [Int: [String]]) {
        var names: [String: Set<String>] = [:]
        let hasNames = try database.integer("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'type_name'") ?? 0 > 0
        if hasNames {
            _ = try database.records(typeNames) { row in
                let folded = SearchFolding.fold(try row.text("name"))
                if !folded.isEmpty { names[try row.text("slug"), default: []].insert(folded) }
            }
        }
        var types: [Int: [String]] = [:]
        for (id, type) in try database.records(pokemonTypes, [], { (try $0.int("pokemon_id"), try $0.text("type")) }) {
            types[id, default: []].append(type)
            let folded = SearchFolding.fold(type)
            if !folded.isEmpty { names[type, default: []].insert(folded) }
        }
        return (names.mapValues { $0.sorted() }, types)
    }

    /// The builder's search table, when it has this shape: not part of the declared schema.
    static let searchTable = DeviceSchema.Table("pokemon_search", entity: .pokemon, keyCount: 2,
                                                [.integer("pokemon_id"), .text("text")])
    static let searchRows = ReadQuery(searchTable, ["text"], "ORDER BY pokemon_id")
    static let pokemonNames = ReadQuery(.pokemon, ["name"])
    static let speciesNames = ReadQuery(.speciesName, as: "n", ["name"], also: [.column(.pokemon, alias: "p", "id", as: "pokemon_id")],
                                        "FROM pokemon p JOIN species_name n ON n.species_id = p.species_id WHERE n.name IS NOT NULL")
    static let typeNames = ReadQuery(.typeName, as: "n", ["name"], also: [.column(.type, alias: "t", "name", as: "slug")],
                                     #"FROM "type" t JOIN type_name n ON n.type_id = t.id"#)
    static let pokemonTypes = ReadQuery(.pokemonType, ["type"])

    /// Whether `pokemon_search` exists with `pokemon_id` and `text` columns.
    private static func hasPlainSearchTable(_ database: Database) throws -> Bool {
        let columns = try database.rows("SELECT name FROM pragma_table_info('pokemon_search')", []) { $0.text(0) }
        return columns.contains("pokemon_id") && columns.contains("text")
    }

    /// The pokemon every term matches, best rank first, then by id.
    func search(terms: [String]) -> [SearchHit] {
        guard !terms.isEmpty else { return [] }
        let needles = terms.map { Array($0.utf8) }
        var buckets: [[SearchHit]] = [[], [], []]
        bytes.withUnsafeBufferPointer { text in
            stringStarts.withUnsafeBufferPointer { starts in
                for entry in entries {
                    var worst = SearchRank.exact
                    var matched = true
                    for needle in needles {
                        let rank = needle.withUnsafeBufferPointer { needle in
                            var best = Self.bestRank(of: needle, in: entry.strings, starts, text)
                            for type in entry.types where best != .exact {
                                if let rank = Self.bestRank(of: needle, in: typeStrings[type], starts, text) {
                                    best = min(best ?? rank, rank)
                                }
                            }
                            return best
                        }
                        guard let rank else { matched = false; break }
                        worst = max(worst, rank)
                    }
                    if matched { buckets[worst.rawValue].append(SearchHit(pokemon: entry.summary, rank: worst)) }
                }
            }
        }
        // Entries are in id order, so each bucket already is.
        return buckets[0] + buckets[1] + buckets[2]
    }

    /// The best way `needle` matches one of the strings, or nil.
    private static func bestRank(of needle: UnsafeBufferPointer<UInt8>, in strings: Range<Int>,
                                 _ starts: UnsafeBufferPointer<Int>, _ text: UnsafeBufferPointer<UInt8>) -> SearchRank? {
        var best: SearchRank?
        let count = needle.count
        for index in strings {
            let start = starts[index], end = starts[index + 1]
            guard end - start >= count else { continue }
            if matches(needle, text, at: start) {
                if end - start == count { return .exact }
                best = .prefix
            } else if best == nil, contains(needle, text, from: start + 1, to: end) {
                best = .substring
            }
        }
        return best
    }

    private static func matches(_ needle: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        var offset = 0
        while offset < needle.count {
            if text[start + offset] != needle[offset] { return false }
            offset += 1
        }
        return true
    }

    private static func contains(_ needle: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>,
                                 from start: Int, to end: Int) -> Bool {
        let first = needle[0]
        var position = start
        while position + needle.count <= end {
            if text[position] == first && matches(needle, text, at: position) { return true }
            position += 1
        }
        return false
    }
}
