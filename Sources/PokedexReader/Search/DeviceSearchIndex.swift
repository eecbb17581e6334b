import PokeSQLite

/// `pokemon_search`: for each pokemon, the folded strings search (<doc:PokedexReader/Reader#Search>) matches terms
/// against that are its own: its name and its species' name in every language of the
/// database, each folded with ``SearchFolding/fold(_:)``. Its types (slugs and names in
/// every language), which search matches too, are not stored per pokemon: the
/// reader adds them from `pokemon_type` and `type_name` when it loads the strings
/// (SearchIndex), so this table, and a delta that renames a type, stay small.
///
/// A plain `(pokemon_id, text)` table rather than FTS5: search matches substrings
/// anywhere in a string (`"zard"` finds charizard), which FTS5's token index does not
/// answer, and a full scan of ~10,000 short rows takes a few milliseconds. The table
/// belongs to no entity: it is derived from the others and rebuilt whole, by the
/// builder and by the updater after it applies a delta.
package enum DeviceSearchIndex {
    /// The search table's DDL (part of ``DeviceSchema/ddl``).
    package static let ddl = """
    CREATE TABLE pokemon_search(
        pokemon_id INTEGER NOT NULL, text TEXT NOT NULL,
        PRIMARY KEY(pokemon_id, text)) WITHOUT ROWID;
    """

    /// The strings each pokemon is found by, before folding: plain SQL over the schema's
    /// tables, so any client can rebuild the index the same way.
    package static let sourceQuery = """
    SELECT id, name FROM pokemon
    UNION ALL
    SELECT p.id, n.name FROM pokemon p JOIN species_name n ON n.species_id = p.species_id WHERE n.name IS NOT NULL
    """

    /// Replaces the content of `pokemon_search` with what the other tables give. Call it
    /// inside the transaction that changed them.
    /// - Throws: `DatabaseError` when a table is missing or the database cannot be written.
    package static func rebuild(_ database: Database) throws {
        try rebuild(database, sourceQuery: sourceQuery, clearing: "DELETE FROM pokemon_search")
    }

    /// After a delta is applied (its `changes.sqlite` still attached as `changes`), rebuilds
    /// only the rows of the pokemon it touched: those it adds, changes or removes, and those
    /// of the species it adds, changes or removes. The result equals a full rebuild; folding
    /// every name again would cost more than the rest of a small delta.
    package static func rebuildAfterDelta(_ database: Database) throws {
        try database.execute("""
            CREATE TEMP TABLE IF NOT EXISTS search_touched(id INTEGER PRIMARY KEY);
            DELETE FROM temp.search_touched;
            INSERT OR IGNORE INTO temp.search_touched SELECT id FROM changes.pokemon;
            INSERT OR IGNORE INTO temp.search_touched SELECT id FROM changes.removed WHERE entity = 'pokemon';
            INSERT OR IGNORE INTO temp.search_touched SELECT p.id FROM main.pokemon p WHERE p.species_id IN
                (SELECT id FROM changes.species UNION SELECT id FROM changes.removed WHERE entity = 'species');
            """)
        try rebuild(database, sourceQuery: "SELECT * FROM (\(sourceQuery)) WHERE id IN (SELECT id FROM temp.search_touched)",
                    clearing: "DELETE FROM pokemon_search WHERE pokemon_id IN (SELECT id FROM temp.search_touched)")
        try database.execute("DROP TABLE temp.search_touched")
    }

    private static func rebuild(_ database: Database, sourceQuery: String, clearing: String) throws {
        var entries = Set<Entry>()
        for (id, text) in try database.rows(sourceQuery, [], { ($0.int(0), $0.text(1)) }) {
            let folded = SearchFolding.fold(text)
            if !folded.isEmpty { entries.insert(Entry(pokemonID: id, text: folded)) }
        }
        try database.execute(clearing)
        let insert = try database.statement("INSERT INTO pokemon_search(pokemon_id, text) VALUES (?, ?)")
        // Key order: the b-tree is filled from left to right, and the file does not
        // depend on hashing order.
        for entry in entries.sorted() {
            try insert.run([.integer(Int64(entry.pokemonID)), .text(entry.text)])
        }
    }

    private struct Entry: Hashable, Comparable {
        var pokemonID: Int
        var text: String

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.pokemonID != rhs.pokemonID ? lhs.pokemonID < rhs.pokemonID : lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
        }
    }
}
