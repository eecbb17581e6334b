/// The device database (`pokedex.sqlite`) as <doc:PokedexReader/DeviceDatabase> fixes it: the tables apps and other
/// clients rely on, their key columns, and the columns `content_digest` covers.
///
/// One definition serves the bundle writer, the delta builder, the updater and the
/// reader, so that they cannot drift apart.
package enum DeviceSchema {
    /// The schema version written to `meta`, manifests and the index. A reader refuses a
    /// database whose major version is newer than this.
    package static let version = 2

    /// One table of the schema.
    package struct Table: Sendable, Hashable {
        /// The table's name (it may be a view over the builder's own tables).
        package let name: String
        /// The columns <doc:PokedexReader/DeviceDatabase> lists, in its order: what `content_digest` covers.
        package let columns: [String]
        /// How many of the leading `columns` form the key.
        package let keyCount: Int
        /// The entity the table's rows belong to, by its first key column; nil for `meta`.
        package let entity: Entity?

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

    /// Every table of the schema, in the order <doc:PokedexReader/DeviceDatabase> lists them (the order of `content_digest`).
    package static let tables: [Table] = [
        Table(name: "meta", columns: ["key", "value"], keyCount: 1, entity: nil),
        Table(name: "pokemon", columns: ["id", "name", "species_id", "height", "weight", "base_experience",
                                         "is_default", "sort_order"], keyCount: 1, entity: .pokemon),
        Table(name: "pokemon_type", columns: ["pokemon_id", "slot", "type"], keyCount: 2, entity: .pokemon),
        Table(name: "pokemon_stat", columns: ["pokemon_id", "stat", "base_stat", "effort"], keyCount: 2, entity: .pokemon),
        Table(name: "pokemon_ability", columns: ["pokemon_id", "slot", "ability", "is_hidden"], keyCount: 2,
              entity: .pokemon),
        Table(name: "pokemon_move", columns: ["pokemon_id", "move"], keyCount: 2, entity: .pokemon),
        Table(name: "pokemon_sprite", columns: ["pokemon_id", "key", "url", "path"], keyCount: 2, entity: .pokemon),
        Table(name: "species", columns: ["id", "name", "generation", "evolution_chain_id", "evolves_from_species_id",
                                         "is_baby", "is_legendary", "is_mythical", "color", "habitat", "gender_rate",
                                         "capture_rate"], keyCount: 1, entity: .species),
        Table(name: "species_name", columns: ["species_id", "language", "name", "genus"], keyCount: 2, entity: .species),
        Table(name: "species_flavor_text", columns: ["species_id", "language", "version", "entry_index", "text"],
              keyCount: 3, entity: .species),
        Table(name: "pokedex", columns: ["id", "name", "region", "is_main_series"], keyCount: 1, entity: .pokedex),
        Table(name: "pokedex_entry", columns: ["pokedex_id", "entry_number", "species_id"], keyCount: 2,
              entity: .pokedex),
        Table(name: "pokedex_description", columns: ["pokedex_id", "language", "description"], keyCount: 2,
              entity: .pokedex),
        Table(name: "evolution_chain", columns: ["id", "root_species_id", "baby_trigger_item"], keyCount: 1,
              entity: .evolutionChain),
        Table(name: "evolution_step", columns: ["chain_id", "to_species_id", "from_species_id", "trigger", "min_level",
                                                "item", "details_json"], keyCount: 2, entity: .evolutionChain),
        Table(name: "type", columns: ["id", "name", "generation"], keyCount: 1, entity: .type),
        Table(name: "type_name", columns: ["type_id", "language", "name"], keyCount: 2, entity: .type),
        Table(name: "type_efficacy", columns: ["attacking_type_id", "defending_type_id", "factor"], keyCount: 2,
              entity: .type),
        Table(name: "ability", columns: ["id", "name", "generation", "is_main_series"], keyCount: 1, entity: .ability),
        Table(name: "ability_name", columns: ["ability_id", "language", "name"], keyCount: 2, entity: .ability),
        Table(name: "ability_text", columns: ["ability_id", "language", "short_effect", "flavor_text"], keyCount: 2,
              entity: .ability),
        Table(name: "move", columns: ["id", "name", "type_id", "damage_class", "power", "accuracy", "pp", "priority",
                                      "generation"], keyCount: 1, entity: .move),
        Table(name: "move_name", columns: ["move_id", "language", "name"], keyCount: 2, entity: .move),
        Table(name: "move_text", columns: ["move_id", "language", "short_effect", "flavor_text"], keyCount: 2,
              entity: .move),
        Table(name: "stat", columns: ["id", "name", "is_battle_only"], keyCount: 1, entity: .stat),
        Table(name: "stat_name", columns: ["stat_id", "language", "name"], keyCount: 2, entity: .stat),
        Table(name: "version", columns: ["id", "name", "version_group"], keyCount: 1, entity: .version),
        Table(name: "version_name", columns: ["version_id", "language", "name"], keyCount: 2, entity: .version),
        Table(name: "language", columns: ["id", "name", "iso639", "iso3166", "official"], keyCount: 1,
              entity: .language),
        Table(name: "language_name", columns: ["language_id", "in_language", "name"], keyCount: 2, entity: .language),
    ]

    /// `name` as an SQL identifier (the schema's names need no escaping inside the quotes).
    package static func quoted(_ name: String) -> String { "\"\(name)\"" }

    /// The tables that hold an entity's rows (the root table first).
    package static func tables(of entity: Entity) -> [Table] { tables.filter { $0.entity == entity } }

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
