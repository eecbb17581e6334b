import PokeSQLite

/// Every pokemon's folded search strings in one byte buffer, matched in memory.
///
/// DESIGN's rule has no index-friendly shape (any term may be a substring of any
/// string), and the whole set is small (about 12,000 strings, 200 KB for 1,351 pokemon),
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

    struct Entry: Sendable {
        let summary: PokemonSummary
        let strings: Range<Int>
    }

    init(bytes: [UInt8], stringStarts: [Int], entries: [Entry]) {
        self.bytes = bytes
        self.stringStarts = stringStarts
        self.entries = entries
    }

    /// Reads the search strings and list rows of every pokemon.
    ///
    /// The strings come from the builder's `pokemon_search(pokemon_id, text)` when it has
    /// that shape (already folded). Otherwise (the search tables are the builder's choice)
    /// they are made here from the logical tables with ``SearchFolding``.
    static func load(from database: Database) throws -> SearchIndex {
        var strings: [Int: [String]] = [:]
        if try hasPlainSearchTable(database) {
            for (id, text) in try database.rows("SELECT pokemon_id, text FROM pokemon_search", [], { ($0.int(0), $0.text(1)) }) {
                strings[id, default: []].append(text)
            }
        } else {
            let sources = [
                "SELECT id, name FROM pokemon",
                "SELECT p.id, n.name FROM pokemon p JOIN species_name n ON n.species_id = p.species_id WHERE n.name IS NOT NULL",
                "SELECT pokemon_id, type FROM pokemon_type",
            ]
            for sql in sources {
                for (id, text) in try database.rows(sql, [], { ($0.int(0), $0.text(1)) }) {
                    strings[id, default: []].append(SearchFolding.fold(text))
                }
            }
        }
        var types: [Int: [String]] = [:]
        for (id, type) in try database.rows("SELECT pokemon_id, type FROM pokemon_type ORDER BY pokemon_id, slot", [],
                                            { ($0.int(0), $0.text(1)) }) {
            types[id, default: []].append(type)
        }
        var bytes: [UInt8] = []
        var starts: [Int] = [0]
        var entries: [Entry] = []
        for (id, name) in try database.rows("SELECT id, name FROM pokemon ORDER BY id", [], { ($0.int(0), $0.text(1)) }) {
            let first = starts.count - 1
            for text in Set(strings[id] ?? []).sorted() where !text.isEmpty {
                bytes.append(contentsOf: text.utf8)
                starts.append(bytes.count)
            }
            let summary = PokemonSummary(id: id, name: name, types: types[id] ?? [],
                                         thumbnail: try Pokedex.thumbnail(of: id, in: database))
            entries.append(Entry(summary: summary, strings: first ..< starts.count - 1))
        }
        return SearchIndex(bytes: bytes, stringStarts: starts, entries: entries)
    }

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
        bytes.withUnsafeBufferPointer { buffer in
            for entry in entries {
                var worst = SearchRank.exact
                var matched = true
                for needle in needles {
                    guard let rank = bestRank(of: needle, in: entry.strings, buffer) else { matched = false; break }
                    worst = max(worst, rank)
                }
                if matched { buckets[worst.rawValue].append(SearchHit(pokemon: entry.summary, rank: worst)) }
            }
        }
        // Entries are in id order, so each bucket already is.
        return buckets.flatMap { $0 }
    }

    /// The best way `needle` matches one of the strings, or nil.
    private func bestRank(of needle: [UInt8], in strings: Range<Int>, _ buffer: UnsafeBufferPointer<UInt8>) -> SearchRank? {
        var best: SearchRank?
        for index in strings {
            let start = stringStarts[index], end = stringStarts[index + 1]
            let length = end - start
            guard length >= needle.count else { continue }
            if Self.matches(needle, buffer, at: start) {
                if length == needle.count { return .exact }
                best = .prefix
            } else if best == nil, Self.contains(needle, buffer, from: start + 1, to: end) {
                best = .substring
            }
        }
        return best
    }

    private static func matches(_ needle: [UInt8], _ buffer: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        for offset in 0 ..< needle.count where buffer[start + offset] != needle[offset] { return false }
        return true
    }

    private static func contains(_ needle: [UInt8], _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        guard let first = needle.first else { return true }
        var position = start
        while position + needle.count <= end {
            if buffer[position] == first && matches(needle, buffer, at: position) { return true }
            position += 1
        }
        return false
    }
}
