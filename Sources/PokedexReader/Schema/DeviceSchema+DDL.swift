import PokeSQLite

/// The physical layout of `pokedex.sqlite`: what the builder creates and what the
/// updater applies deltas to, made from the declaration (``DeviceSchema/tables``).
///
/// Every table has its declared columns in order, keyed by its key, so that the plain-SQL
/// delta application (`DELETE FROM t WHERE <first key column> = ?`, `INSERT INTO t(cols)
/// SELECT cols FROM changes.t`) works as written. Most are plain tables: a table whose
/// key is a single integer column uses it as the rowid; the others are `WITHOUT ROWID`,
/// so the key is the only b-tree and no index is stored twice. `pokemon.name` is `UNIQUE`
/// (<doc:PokedexReader/DeviceDatabase#The-tables>), which gives the reader its lookup by name.
///
/// Five are views over the builder's own tables (<doc:PokedexReader/DeviceDatabase#Views-over-shared-tables> allows it), because they were
/// most of the gzipped file: `species_flavor_text`, `pokemon_move`, `pokemon_sprite`
/// (see `DeviceSchema+SharedTables.swift`), `ability_text` and `move_text`
/// (`DeviceSchema+SharedTexts.swift`). Their `INSTEAD OF` triggers make the same plain SQL
/// work on them.
extension DeviceSchema {
    /// The page size every database is built and shipped with: fixed, so that equal
    /// content gives equal bytes.
    package static let pageSize = 4096

    /// `CREATE` statements of the device tables, the search table included: the text this
    /// schema version shipped with (``shippedDDL``), or, for a version not yet pinned there,
    /// the text rendered from the declaration.
    package static let ddl = shippedDDL[version] ?? ddl(for: tables)

    /// `CREATE` statements of `tables`, in order, then the search table's, rendered from
    /// the declaration: a test's copy of it, or a version not yet shipped.
    package static func ddl(for tables: [Table]) -> String {
        (tables.map(\.createStatement) + [DeviceSearchIndex.ddl]).joined(separator: "\n")
    }

    /// Creates the schema of `tables` in an empty database, with the fixed page size: the
    /// shipped text for the declaration itself, the rendered one for another list.
    /// - Throws: `DatabaseError` when the database is not empty or cannot be written.
    package static func create(in database: Database, tables: [Table] = tables) throws {
        try database.execute("PRAGMA page_size=\(pageSize);")
        try database.execute(tables == self.tables ? ddl : ddl(for: tables))
    }
}

extension DeviceSchema.Table {
    /// Whether the table is stored without a rowid: all but those keyed by one integer column.
    package var isWithoutRowid: Bool { !(keyCount == 1 && declaredColumns[0].type == .integer) }

    /// The statement that creates the table (for a view, its builder tables, the view and
    /// its triggers), ending in `;`, rendered from the declaration: a table keyed by one
    /// column on one line, any other with a column definition a line and its key last.
    /// A released version's files hold the text of ``DeviceSchema/shippedDDL`` instead,
    /// which this rendering need not reproduce.
    package var createStatement: String {
        switch storage {
        case let .view(view):
            return view.ddl(PlainViewColumns(plainColumns))
        case let .table(quotedName):
            let name = quotedName ? self.quotedName : self.name
            let end = isWithoutRowid ? ") WITHOUT ROWID;" : ");"
            let definitions = declaredColumns.map(\.definition)
            if keyCount == 1 {
                return "CREATE TABLE \(name)(" + definitions.joined(separator: ", ") + end
            }
            let lines = definitions + ["PRIMARY KEY(\(keyColumns.joined(separator: ", ")))"]
            return "CREATE TABLE \(name)(\n" + lines.map { "    " + $0 }.joined(separator: ",\n") + end
        }
    }
}
