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
    ///
    /// A plain table's text is derived from its columns, never written by hand: SQLite
    /// keeps it in the file, so its layout is part of the file's bytes, and this rule gives
    /// the text every shipped file holds (`DeviceSchemaDeclarationTests` holds it to that).
    /// A table keyed by one column goes on one line when it fits ``DDLLayout/oneLine``;
    /// otherwise the column definitions are wrapped into lines of at most
    /// ``DDLLayout/lineWidth`` characters, indented by four, and a key of several columns
    /// takes a line of its own. A column added at the end joins the last line that has room.
    package var createStatement: String {
        switch storage {
        case let .view(view):
            return view.ddl(PlainViewColumns(plainColumns))
        case let .table(quotedName):
            let name = quotedName ? self.quotedName : self.name
            let end = isWithoutRowid ? ") WITHOUT ROWID;" : ");"
            let definitions = declaredColumns.map(\.definition)
            if keyCount == 1 {
                let statement = "CREATE TABLE \(name)(" + definitions.joined(separator: ", ") + end
                if statement.count <= DDLLayout.oneLine { return statement }
            }
            var lines = wrappedDefinitions()
            if keyCount > 1 { lines.append("PRIMARY KEY(\(keyColumns.joined(separator: ", ")))") }
            return "CREATE TABLE \(name)(\n" + lines.map { DDLLayout.indent + $0 }.joined(separator: ",\n") + end
        }
    }

    /// The column definitions, greedily filled into lines of at most ``DDLLayout/lineWidth``
    /// characters (indent included, the separator after the line not), each line also
    /// breaking before a column ``DDLLayout/shippedBreaks`` names.
    private func wrappedDefinitions() -> [String] {
        let breaks = DDLLayout.shippedBreaks[name] ?? []
        var lines: [String] = []
        for column in declaredColumns {
            let definition = column.definition
            if let last = lines.last, !breaks.contains(column.name),
               DDLLayout.indent.count + last.count + 2 + definition.count <= DDLLayout.lineWidth {
                lines[lines.count - 1] = last + ", " + definition
            } else {
                lines.append(definition)
            }
        }
        return lines
    }
}

/// The widths that give the shipped `CREATE TABLE` texts (``DeviceSchema/Table/createStatement``).
package enum DDLLayout {
    /// The longest statement of a single-key table written on one line.
    static let oneLine = 124
    /// The longest line of a wrapped statement, its indent included.
    static let lineWidth = 107
    static let indent = "    "
    /// The one line break of the shipped texts the widths do not give: `pokemon`'s first
    /// line holds its identity (`id`, `name`, `species_id`). Kept so that the file's bytes
    /// stay those of every bundle already published; no new column needs an entry.
    static let shippedBreaks: [String: Set<String>] = [DeviceSchema.Table.pokemon.name: ["height"]]
}
