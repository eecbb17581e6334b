import PokeSQLite

/// The physical layout of `pokedex.sqlite`: what the builder creates and what the
/// updater applies deltas to.
///
/// Every table of ``DeviceSchema/tables`` has the columns of <doc:PokedexReader/DeviceDatabase> in its order, keyed by
/// its key, so that the plain-SQL delta application (`DELETE FROM t WHERE <first
/// key column> = ?`, `INSERT INTO t(cols) SELECT cols FROM changes.t`) works as written.
/// Most are plain tables: entity tables with a single integer key use it as the rowid;
/// the others are `WITHOUT ROWID`, so the key is the only b-tree and no index is stored
/// twice. `pokemon.name` is `UNIQUE` (<doc:PokedexReader/DeviceDatabase#The-tables>), which gives the reader its lookup by name.
///
/// Three are views over the builder's own tables (<doc:PokedexReader/DeviceDatabase#Views-over-shared-tables> allows it), because they were
/// most of the gzipped file: `species_flavor_text`, `pokemon_move` and `pokemon_sprite`
/// (see `DeviceSchema+SharedTables.swift`). Their `INSTEAD OF` triggers make the same
/// plain SQL work on them.
extension DeviceSchema {
    /// The page size every database is built and shipped with: fixed, so that equal
    /// content gives equal bytes.
    package static let pageSize = 4096

    /// `CREATE` statements of the device tables, the search table included.
    package static let ddl = """
    CREATE TABLE meta(key TEXT NOT NULL PRIMARY KEY, value TEXT) WITHOUT ROWID;
    CREATE TABLE pokemon(
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, species_id INTEGER NOT NULL,
        height INTEGER, weight INTEGER, base_experience INTEGER, is_default INTEGER NOT NULL,
        sort_order INTEGER);
    CREATE TABLE pokemon_type(
        pokemon_id INTEGER NOT NULL, slot INTEGER NOT NULL, type TEXT NOT NULL,
        PRIMARY KEY(pokemon_id, slot)) WITHOUT ROWID;
    CREATE TABLE pokemon_stat(
        pokemon_id INTEGER NOT NULL, stat TEXT NOT NULL, base_stat INTEGER NOT NULL, effort INTEGER NOT NULL,
        PRIMARY KEY(pokemon_id, stat)) WITHOUT ROWID;
    CREATE TABLE pokemon_ability(
        pokemon_id INTEGER NOT NULL, slot INTEGER NOT NULL, ability TEXT NOT NULL, is_hidden INTEGER NOT NULL,
        PRIMARY KEY(pokemon_id, slot)) WITHOUT ROWID;
    \(sharedMoveDDL)
    \(sharedSpriteDDL)
    CREATE TABLE species(
        id INTEGER PRIMARY KEY, name TEXT NOT NULL, generation TEXT, evolution_chain_id INTEGER,
        evolves_from_species_id INTEGER, is_baby INTEGER NOT NULL, is_legendary INTEGER NOT NULL,
        is_mythical INTEGER NOT NULL, color TEXT, habitat TEXT, gender_rate INTEGER, capture_rate INTEGER);
    CREATE TABLE species_name(
        species_id INTEGER NOT NULL, language TEXT NOT NULL, name TEXT, genus TEXT,
        PRIMARY KEY(species_id, language)) WITHOUT ROWID;
    \(sharedFlavorTextDDL)
    CREATE TABLE pokedex(id INTEGER PRIMARY KEY, name TEXT NOT NULL, region TEXT, is_main_series INTEGER NOT NULL);
    CREATE TABLE pokedex_entry(
        pokedex_id INTEGER NOT NULL, entry_number INTEGER NOT NULL, species_id INTEGER NOT NULL,
        PRIMARY KEY(pokedex_id, entry_number)) WITHOUT ROWID;
    CREATE TABLE pokedex_description(
        pokedex_id INTEGER NOT NULL, language TEXT NOT NULL, description TEXT NOT NULL,
        PRIMARY KEY(pokedex_id, language)) WITHOUT ROWID;
    CREATE TABLE evolution_chain(id INTEGER PRIMARY KEY, root_species_id INTEGER NOT NULL, baby_trigger_item TEXT);
    CREATE TABLE evolution_step(
        chain_id INTEGER NOT NULL, to_species_id INTEGER NOT NULL, from_species_id INTEGER NOT NULL,
        trigger TEXT, min_level INTEGER, item TEXT, details_json TEXT NOT NULL,
        PRIMARY KEY(chain_id, to_species_id)) WITHOUT ROWID;
    \(referenceDDL)
    \(DeviceSearchIndex.ddl)
    """

    /// Creates the schema in an empty database, with the fixed page size.
    /// - Throws: `DatabaseError` when the database is not empty or cannot be written.
    package static func create(in database: Database) throws {
        try database.execute("PRAGMA page_size=\(pageSize);")
        try database.execute(ddl)
    }
}
