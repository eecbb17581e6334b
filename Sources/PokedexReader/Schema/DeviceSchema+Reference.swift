/// The reference tables (<doc:PokedexReader/DeviceDatabase#Reference-tables>: `type*`, `ability*`, `move*`, `stat*`, `version*`,
/// `language*`): the localized names and facts of what the pokemon tables name by slug.
///
/// Entity tables are keyed by their integer id (the rowid) with `name` UNIQUE, which
/// gives the reader its joins from a slug. The localized tables are `WITHOUT ROWID`,
/// keyed by (entity id, language), so one entity's languages sit together in the file;
/// `ability_text` and `move_text` are views over shared texts (DeviceSchema+SharedTexts).
extension DeviceSchema.Table {
    package static let type = Self("type", entity: .type, keyCount: 1, [
        .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE"), .text("generation"),
    ], storage: .table(quotedName: true))
    package static let typeName = localizedNames("type_name", of: .type, idColumn: "type_id")
    package static let typeEfficacy = Self("type_efficacy", entity: .type, keyCount: 2, [
        .integer("attacking_type_id", "NOT NULL"), .integer("defending_type_id", "NOT NULL"),
        .integer("factor", "NOT NULL"),
    ])
    // `read: false`: the reader joins on `id` and does not show these (serve does).
    package static let ability = Self("ability", entity: .ability, keyCount: 1, [
        .integer("id", "PRIMARY KEY", read: false), .text("name", "NOT NULL UNIQUE"), .text("generation", read: false),
        .integer("is_main_series", "NOT NULL", read: false),
    ])
    package static let abilityName = localizedNames("ability_name", of: .ability, idColumn: "ability_id")
    package static let abilityText = sharedTexts(of: .ability)
    // The reader joins on `name` (a pokemon's moves are slugs) and takes the slug from the pokemon.
    package static let move = Self("move", entity: .move, keyCount: 1, [
        .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE", read: false), .integer("type_id"), .text("damage_class"),
        .integer("power"), .integer("accuracy"), .integer("pp"), .integer("priority", read: false),
        .text("generation", read: false),
    ])
    package static let moveName = localizedNames("move_name", of: .move, idColumn: "move_id")
    package static let moveText = sharedTexts(of: .move, read: false)
    package static let stat = Self("stat", entity: .stat, keyCount: 1, [
        .integer("id", "PRIMARY KEY", read: false), .text("name", "NOT NULL UNIQUE"),
        .integer("is_battle_only", "NOT NULL", read: false),
    ])
    package static let statName = localizedNames("stat_name", of: .stat, idColumn: "stat_id")
    package static let version = Self("version", entity: .version, keyCount: 1, [
        .integer("id", "PRIMARY KEY", read: false), .text("name", "NOT NULL UNIQUE"), .text("version_group", read: false),
    ])
    package static let versionName = localizedNames("version_name", of: .version, idColumn: "version_id")
    package static let language = Self("language", entity: .language, keyCount: 1, [
        .integer("id", "PRIMARY KEY", read: false), .text("name", "NOT NULL UNIQUE"), .text("iso639", read: false),
        .text("iso3166", read: false), .integer("official", "NOT NULL", read: false),
    ])
    package static let languageName = localizedNames("language_name", of: .language, idColumn: "language_id",
                                                     languageColumn: "in_language")

    /// `<kind>_name(<kind>_id*, language*, name)`: an entity's name in each language.
    private static func localizedNames(_ name: String, of entity: DeviceSchema.Entity, idColumn: String,
                                       languageColumn: String = "language") -> Self {
        Self(name, entity: entity, keyCount: 2, [
            .integer(idColumn, "NOT NULL"), .text(languageColumn, "NOT NULL"), .text("name", "NOT NULL"),
        ])
    }

    /// `<kind>_text(<kind>_id*, language*, short_effect, flavor_text)`, a view over shared
    /// texts; `read`: whether the reader reads them (a move's texts are for other clients).
    private static func sharedTexts(of entity: DeviceSchema.Entity, read: Bool = true) -> Self {
        let kind = entity.rawValue
        return Self("\(kind)_text", entity: entity, keyCount: 2, [
            .integer("\(kind)_id", read: read), .text("language", read: read), .text("short_effect", read: read),
            .text("flavor_text", read: read),
        ], storage: .view(.texts(kind: kind)))
    }
}
