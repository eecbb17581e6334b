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
        /// Whether the reader (`PokedexReader`) reads its value; false for a column kept for
        /// other clients, or one the reader only joins or orders on. A test holds every
        /// other column to a reader query that selects it (`ReaderColumnsTests`).
        package let isRead: Bool

        package init(_ name: String, _ type: SQLType, _ constraints: String = "", read: Bool = true) {
            self.name = name
            self.type = type
            self.constraints = constraints
            self.isRead = read
        }

        package static func integer(_ name: String, _ constraints: String = "", read: Bool = true) -> Column {
            Column(name, .integer, constraints, read: read)
        }
        package static func text(_ name: String, _ constraints: String = "", read: Bool = true) -> Column {
            Column(name, .text, constraints, read: read)
        }

        /// `name TYPE constraints`, as in a `CREATE TABLE`.
        package var definition: String { constraints.isEmpty ? "\(name) \(type.rawValue)" : "\(name) \(type.rawValue) \(constraints)" }
    }

    /// How a table is stored in the file.
    package enum Storage: Sendable, Hashable {
        /// A table of its own, created from its columns (``Table/createStatement``, which
        /// also derives the statement's line layout). `quotedName` writes the name in quotes.
        case table(quotedName: Bool = false)
        /// A view over the builder's own tables (<doc:PokedexReader/DeviceDatabase#Views-over-shared-tables>):
        /// the design creates those tables, the view and the `INSTEAD OF` triggers that take
        /// a delta's plain SQL, for the table's leading columns; the columns declared after
        /// them (``Table/plainColumns``) are stored as they are in its link table. The view's
        /// columns are the declared ones, in order (`DeviceSchemaDeclarationTests` holds them to it).
        case view(SharedView)
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
            if case let .view(view) = storage {
                precondition(columns.count >= view.designedColumnCount, "\(name): its view's design stores \(view.designedColumnCount) columns")
            }
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

        /// A view table's columns declared after those its design stores specially
        /// (``SharedView/designedColumnCount``): each is stored as it is in the view's link
        /// table, so adding one takes no SQL. None for a plain table.
        package var plainColumns: ArraySlice<Column> {
            guard case let .view(view) = storage else { return [] }
            return declaredColumns.dropFirst(view.designedColumnCount)
        }

        /// The same table with `column` declared after the others: how a test shows a new
        /// column travelling through the file, the digest and a delta (for a view, a plain
        /// column).
        package func adding(_ column: Column) -> Table {
            Table(name, entity: entity, keyCount: keyCount, declaredColumns + [column], storage: storage)
        }
    }

    /// The things a delta adds, changes or removes as a whole.
    package enum Entity: String, Sendable, CaseIterable {
        case pokemon, species, pokedex
        case evolutionChain = "evolution_chain"
        /// The reference entities (<doc:PokedexReader/DeviceDatabase#Entities>: `type*` tables belong to `type(id)`, ...).
        case type, ability, move, stat, version, language
        /// The table whose `id` names the entity.
        package var rootTable: Table { DeviceSchema.tables.first { $0.entity == self }! }
    }

    /// Every table of the schema, in the order <doc:PokedexReader/DeviceDatabase> lists them (the order of
    /// `content_digest` and of the DDL). Each is declared once, below, and named by its
    /// declaration everywhere else (`.pokemon`, `.speciesName`).
    package static let tables: [Table] = [
        .meta, .pokemon, .pokemonType, .pokemonStat, .pokemonAbility, .pokemonMove, .pokemonSprite,
        .species, .speciesName, .speciesFlavorText, .pokedex, .pokedexEntry, .pokedexDescription,
        .evolutionChain, .evolutionStep,
        .type, .typeName, .typeEfficacy, .ability, .abilityName, .abilityText, .move, .moveName, .moveText,
        .stat, .statName, .version, .versionName, .language, .languageName,
    ]

    /// The column a Swift property stands for, by name: `speciesID` is `species_id`,
    /// `detailsJSON` is `details_json`, a name in snake case is itself. The exporter's rows
    /// are matched to the declared columns by it (the reader's models name their columns).
    package static func columnName(ofProperty property: String) -> String {
        var name = ""
        var previous: Character?
        for character in property {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { name.append("_") }
            name.append(contentsOf: character.lowercased())
            previous = character
        }
        return name
    }

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

/// The tables of <doc:PokedexReader/DeviceDatabase#The-tables> (the reference tables are in
/// `DeviceSchema+Reference.swift`). A column is added here, after its table's last column.
extension DeviceSchema.Table {
    package static let meta = Self("meta", entity: nil, keyCount: 1, [.text("key", "NOT NULL PRIMARY KEY"), .text("value")])
    package static let pokemon = Self("pokemon", entity: .pokemon, keyCount: 1, [
        .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE"), .integer("species_id", "NOT NULL"),
        .integer("height"), .integer("weight"), .integer("base_experience"), .integer("is_default", "NOT NULL"),
        .integer("sort_order", read: false),
    ])
    package static let pokemonType = Self("pokemon_type", entity: .pokemon, keyCount: 2, [
        .integer("pokemon_id", "NOT NULL"), .integer("slot", "NOT NULL", read: false), .text("type", "NOT NULL"),
    ])
    package static let pokemonStat = Self("pokemon_stat", entity: .pokemon, keyCount: 2, [
        .integer("pokemon_id", "NOT NULL"), .text("stat", "NOT NULL"), .integer("base_stat", "NOT NULL"),
        .integer("effort", "NOT NULL"),
    ])
    package static let pokemonAbility = Self("pokemon_ability", entity: .pokemon, keyCount: 2, [
        .integer("pokemon_id", "NOT NULL"), .integer("slot", "NOT NULL"), .text("ability", "NOT NULL"),
        .integer("is_hidden", "NOT NULL"),
    ])
    package static let pokemonMove = Self("pokemon_move", entity: .pokemon, keyCount: 2, [.integer("pokemon_id"), .text("move")],
                                           storage: .view(.pokemonMoves))
    package static let pokemonSprite = Self("pokemon_sprite", entity: .pokemon, keyCount: 2, [
        .integer("pokemon_id"), .text("key"), .text("url"), .text("path"),
    ], storage: .view(.pokemonSprites))
    package static let species = Self("species", entity: .species, keyCount: 1, [
        .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL"), .text("generation"), .integer("evolution_chain_id"),
        .integer("evolves_from_species_id", read: false), .integer("is_baby", "NOT NULL"), .integer("is_legendary", "NOT NULL"),
        .integer("is_mythical", "NOT NULL"), .text("color"), .text("habitat"), .integer("gender_rate"),
        .integer("capture_rate"),
    ])
    package static let speciesName = Self("species_name", entity: .species, keyCount: 2, [
        .integer("species_id", "NOT NULL"), .text("language", "NOT NULL"), .text("name"), .text("genus"),
    ])
    package static let speciesFlavorText = Self("species_flavor_text", entity: .species, keyCount: 3, [
        .integer("species_id"), .text("language"), .text("version"), .integer("entry_index"), .text("text"),
    ], storage: .view(.speciesFlavorTexts))
    package static let pokedex = Self("pokedex", entity: .pokedex, keyCount: 1, [
        .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL"), .text("region"), .integer("is_main_series", "NOT NULL"),
    ])
    package static let pokedexEntry = Self("pokedex_entry", entity: .pokedex, keyCount: 2, [
        .integer("pokedex_id", "NOT NULL"), .integer("entry_number", "NOT NULL"), .integer("species_id", "NOT NULL"),
    ])
    package static let pokedexDescription = Self("pokedex_description", entity: .pokedex, keyCount: 2, [
        .integer("pokedex_id", "NOT NULL"), .text("language", "NOT NULL"), .text("description", "NOT NULL"),
    ])
    package static let evolutionChain = Self("evolution_chain", entity: .evolutionChain, keyCount: 1, [
        .integer("id", "PRIMARY KEY"), .integer("root_species_id", "NOT NULL"), .text("baby_trigger_item", read: false),
    ])
    package static let evolutionStep = Self("evolution_step", entity: .evolutionChain, keyCount: 2, [
        .integer("chain_id", "NOT NULL"), .integer("to_species_id", "NOT NULL"), .integer("from_species_id", "NOT NULL"),
        .text("trigger"), .integer("min_level"), .text("item"), .text("details_json", "NOT NULL"),
    ])
}
