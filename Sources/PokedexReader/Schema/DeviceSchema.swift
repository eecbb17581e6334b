/// The device database (`pokedex.sqlite`) as <doc:PokedexReader/DeviceDatabase> fixes it: the tables apps and other
/// clients rely on, their columns, key columns and entity.
///
/// The one declaration of the schema: ``ddl`` creates the tables from it, the bundle
/// writer inserts its columns, `content_digest` covers them, the delta builder and the
/// updater copy them, and a delta's `changes.sqlite` must hold exactly them. A column
/// added to a table here is created, digested and carried by every delta
/// (<doc:PokedexReader/DeviceDatabase#Adding-a-column> says what else it takes).
package enum DeviceSchema {
    /// The schema version written to `meta`, manifests and the index. A reader refuses a
    /// database whose major version is newer than this.
    package static let version = 2

    /// The SQL type of a column: `content_digest` encodes integers, text and nulls only.
    package enum SQLType: String, Sendable, Hashable {
        case integer = "INTEGER"
        case text = "TEXT"
    }

    /// One column of a table: its name, SQL type and constraints, as the DDL writes them.
    package struct Column: Sendable, Hashable {
        package let name: String
        package let type: SQLType
        /// What follows the type in the DDL (`NOT NULL`, `PRIMARY KEY`, `NOT NULL UNIQUE`), or "".
        package let constraints: String

        package init(_ name: String, _ type: SQLType, _ constraints: String = "") {
            self.name = name
            self.type = type
            self.constraints = constraints
        }

        package static func integer(_ name: String, _ constraints: String = "") -> Column { Column(name, .integer, constraints) }
        package static func text(_ name: String, _ constraints: String = "") -> Column { Column(name, .text, constraints) }

        /// `name TYPE constraints`, as in a `CREATE TABLE`.
        package var definition: String { constraints.isEmpty ? "\(name) \(type.rawValue)" : "\(name) \(type.rawValue) \(constraints)" }
    }

    /// How a table is stored in the file.
    package enum Storage: Sendable, Hashable {
        /// A table of its own, created from its columns (``Table/createStatement``). `lines`
        /// counts the column definitions on each line of its `CREATE TABLE` (empty: all on
        /// one line): SQLite keeps the statement's text in the file, so its layout is part of
        /// the file's bytes; a new table needs none. `quotedName` writes the name in quotes.
        case table(lines: [Int] = [], quotedName: Bool = false)
        /// A view over the builder's own tables (<doc:PokedexReader/DeviceDatabase#Views-over-shared-tables>):
        /// `ddl` creates those tables, the view and the `INSTEAD OF` triggers that take a
        /// delta's plain SQL. The view's columns must be the declared ones, in order
        /// (`DeviceSchemaDeclarationTests` holds them to it).
        case view(ddl: String)
    }

    /// One table of the schema.
    package struct Table: Sendable, Hashable {
        /// The table's name (it may be a view over the builder's own tables).
        package let name: String
        /// The declared columns, in order.
        package let declaredColumns: [Column]
        /// The column names, in order: what `content_digest` covers and a delta copies.
        package let columns: [String]
        /// How many of the leading `columns` form the key.
        package let keyCount: Int
        /// The entity the table's rows belong to, by its first key column; nil for `meta`.
        package let entity: Entity?
        package let storage: Storage

        package init(_ name: String, entity: Entity?, keyCount: Int, _ columns: [Column], storage: Storage = .table()) {
            precondition(keyCount >= 1 && keyCount <= columns.count, "\(name): the key is 1 to \(columns.count) columns")
            self.name = name
            self.declaredColumns = columns
            self.columns = columns.map(\.name)
            self.keyCount = keyCount
            self.entity = entity
            self.storage = storage
        }

        package var keyColumns: ArraySlice<String> { columns.prefix(keyCount) }

        /// The name as an SQL identifier: `"pokemon_type"`.
        package var quotedName: String { DeviceSchema.quoted(name) }
        /// The listed columns as SQL, in order: `"pokemon_id", "slot", "type"`; what the
        /// digest, the builder and both ends of a delta select and insert.
        package var columnList: String { columns.map(DeviceSchema.quoted).joined(separator: ", ") }
        /// The key columns as SQL, in order.
        package var keyList: String { keyColumns.map(DeviceSchema.quoted).joined(separator: ", ") }
        /// The first key column as SQL: the entity's id in every table of an entity.
        package var entityColumn: String { DeviceSchema.quoted(columns[0]) }

        /// The same plain table with `column` declared after the others (on a line of its own
        /// in the DDL): how a test shows a new column travelling through the file, the digest
        /// and a delta. (A view's column needs its view and triggers changed too.)
        package func adding(_ column: Column) -> Table {
            var storage = self.storage
            if case let .table(lines, quotedName) = storage, !lines.isEmpty {
                storage = .table(lines: lines + [1], quotedName: quotedName)
            }
            return Table(name, entity: entity, keyCount: keyCount, declaredColumns + [column], storage: storage)
        }
    }

    /// The things a delta adds, changes or removes as a whole.
    package enum Entity: String, Sendable, CaseIterable {
        case pokemon, species, pokedex
        case evolutionChain = "evolution_chain"
        /// The reference entities (<doc:PokedexReader/DeviceDatabase#Entities>: `type*` tables belong to `type(id)`, ...).
        case type, ability, move, stat, version, language
        /// The table whose `id` names the entity.
        package var rootTable: String { rawValue }
    }

    /// Every table of the schema, in the order <doc:PokedexReader/DeviceDatabase> lists them (the order of
    /// `content_digest` and of the DDL).
    package static let tables: [Table] = [
        Table("meta", entity: nil, keyCount: 1, [.text("key", "NOT NULL PRIMARY KEY"), .text("value")]),
        Table("pokemon", entity: .pokemon, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE"), .integer("species_id", "NOT NULL"),
            .integer("height"), .integer("weight"), .integer("base_experience"), .integer("is_default", "NOT NULL"),
            .integer("sort_order"),
        ], storage: .table(lines: [3, 4, 1])),
        Table("pokemon_type", entity: .pokemon, keyCount: 2, [
            .integer("pokemon_id", "NOT NULL"), .integer("slot", "NOT NULL"), .text("type", "NOT NULL"),
        ], storage: .table(lines: [3])),
        Table("pokemon_stat", entity: .pokemon, keyCount: 2, [
            .integer("pokemon_id", "NOT NULL"), .text("stat", "NOT NULL"), .integer("base_stat", "NOT NULL"),
            .integer("effort", "NOT NULL"),
        ], storage: .table(lines: [4])),
        Table("pokemon_ability", entity: .pokemon, keyCount: 2, [
            .integer("pokemon_id", "NOT NULL"), .integer("slot", "NOT NULL"), .text("ability", "NOT NULL"),
            .integer("is_hidden", "NOT NULL"),
        ], storage: .table(lines: [4])),
        Table("pokemon_move", entity: .pokemon, keyCount: 2, [.integer("pokemon_id"), .text("move")],
              storage: .view(ddl: sharedMoveDDL)),
        Table("pokemon_sprite", entity: .pokemon, keyCount: 2, [
            .integer("pokemon_id"), .text("key"), .text("url"), .text("path"),
        ], storage: .view(ddl: sharedSpriteDDL)),
        Table("species", entity: .species, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL"), .text("generation"), .integer("evolution_chain_id"),
            .integer("evolves_from_species_id"), .integer("is_baby", "NOT NULL"), .integer("is_legendary", "NOT NULL"),
            .integer("is_mythical", "NOT NULL"), .text("color"), .text("habitat"), .integer("gender_rate"),
            .integer("capture_rate"),
        ], storage: .table(lines: [4, 3, 5])),
        Table("species_name", entity: .species, keyCount: 2, [
            .integer("species_id", "NOT NULL"), .text("language", "NOT NULL"), .text("name"), .text("genus"),
        ], storage: .table(lines: [4])),
        Table("species_flavor_text", entity: .species, keyCount: 3, [
            .integer("species_id"), .text("language"), .text("version"), .integer("entry_index"), .text("text"),
        ], storage: .view(ddl: sharedFlavorTextDDL)),
        Table("pokedex", entity: .pokedex, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL"), .text("region"), .integer("is_main_series", "NOT NULL"),
        ]),
        Table("pokedex_entry", entity: .pokedex, keyCount: 2, [
            .integer("pokedex_id", "NOT NULL"), .integer("entry_number", "NOT NULL"), .integer("species_id", "NOT NULL"),
        ], storage: .table(lines: [3])),
        Table("pokedex_description", entity: .pokedex, keyCount: 2, [
            .integer("pokedex_id", "NOT NULL"), .text("language", "NOT NULL"), .text("description", "NOT NULL"),
        ], storage: .table(lines: [3])),
        Table("evolution_chain", entity: .evolutionChain, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .integer("root_species_id", "NOT NULL"), .text("baby_trigger_item"),
        ]),
        Table("evolution_step", entity: .evolutionChain, keyCount: 2, [
            .integer("chain_id", "NOT NULL"), .integer("to_species_id", "NOT NULL"), .integer("from_species_id", "NOT NULL"),
            .text("trigger"), .integer("min_level"), .text("item"), .text("details_json", "NOT NULL"),
        ], storage: .table(lines: [3, 4])),
    ] + referenceTables

    /// `name` as an SQL identifier (the schema's names need no escaping inside the quotes).
    package static func quoted(_ name: String) -> String { "\"\(name)\"" }

    /// The tables that hold an entity's rows (the root table first).
    package static func tables(of entity: Entity, in tables: [Table] = tables) -> [Table] {
        tables.filter { $0.entity == entity }
    }

    /// The `meta` keys every database has.
    package enum MetaKey {
        package static let schemaVersion = "schema_version"
        package static let lineage = "lineage"
        package static let version = "version"
        package static let createdAt = "created_at"
        package static let source = "source"
        package static let profile = "profile"
        /// Not itself covered by the digest (it is the digest).
        package static let contentDigest = "content_digest"
    }
}
