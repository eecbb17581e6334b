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

    /// `CREATE` statements of the device tables, the search table included.
    package static let ddl = ddl(for: tables)

    /// `CREATE` statements of `tables`, in order, then the search table's.
    package static func ddl(for tables: [Table]) -> String {
        (tables.map(\.createStatement) + [DeviceSearchIndex.ddl]).joined(separator: "\n")
    }

    /// Creates the schema of `tables` in an empty database, with the fixed page size.
    /// - Throws: `DatabaseError` when the database is not empty or cannot be written.
    package static func create(in database: Database, tables: [Table] = tables) throws {
        try database.execute("PRAGMA page_size=\(pageSize);")
        try database.execute(ddl(for: tables))
    }
}

extension DeviceSchema.Table {
    /// Whether the table is stored without a rowid: all but those keyed by one integer column.
    package var isWithoutRowid: Bool { !(keyCount == 1 && declaredColumns[0].type == .integer) }

    /// The statement that creates the table (for a view, its builder tables, the view and
    /// its triggers), ending in `;`.
    package var createStatement: String {
        switch storage {
        case let .view(ddl):
            return ddl
        case let .table(lines, quotedName):
            let name = quotedName ? self.quotedName : self.name
            let key = keyCount > 1 ? ["PRIMARY KEY(\(keyColumns.joined(separator: ", ")))"] : []
            let end = isWithoutRowid ? ") WITHOUT ROWID;" : ");"
            guard !lines.isEmpty else {
                return "CREATE TABLE \(name)(" + (declaredColumns.map(\.definition) + key).joined(separator: ", ") + end
            }
            precondition(lines.reduce(0, +) == declaredColumns.count, "\(self.name): its DDL lines hold every column")
            var rest = declaredColumns[...]
            var body: [String] = []
            for count in lines {
                body.append(rest.prefix(count).map(\.definition).joined(separator: ", "))
                rest = rest.dropFirst(count)
            }
            return "CREATE TABLE \(name)(\n" + (body + key).map { "    " + $0 }.joined(separator: ",\n") + end
        }
    }
}
