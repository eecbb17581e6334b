/// The reference tables (<doc:PokedexReader/DeviceDatabase#Reference-tables>: `type*`, `ability*`, `move*`, `stat*`, `version*`,
/// `language*`): the localized names and facts of what the pokemon tables name by slug.
///
/// Entity tables are keyed by their integer id (the rowid) with `name` UNIQUE, which
/// gives the reader its joins from a slug. The localized tables are `WITHOUT ROWID`,
/// keyed by (entity id, language), so one entity's languages sit together in the file;
/// `ability_text` and `move_text` are views over shared texts (DeviceSchema+SharedTexts).
extension DeviceSchema {
    static let referenceTables: [Table] = [
        Table("type", entity: .type, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE"), .text("generation"),
        ], storage: .table(quotedName: true)),
        localizedNames("type_name", of: .type, idColumn: "type_id"),
        Table("type_efficacy", entity: .type, keyCount: 2, [
            .integer("attacking_type_id", "NOT NULL"), .integer("defending_type_id", "NOT NULL"),
            .integer("factor", "NOT NULL"),
        ], storage: .table(lines: [3])),
        Table("ability", entity: .ability, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE"), .text("generation"),
            .integer("is_main_series", "NOT NULL"),
        ]),
        localizedNames("ability_name", of: .ability, idColumn: "ability_id"),
        sharedTexts(of: .ability),
        Table("move", entity: .move, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE"), .integer("type_id"), .text("damage_class"),
            .integer("power"), .integer("accuracy"), .integer("pp"), .integer("priority"), .text("generation"),
        ], storage: .table(lines: [5, 4])),
        localizedNames("move_name", of: .move, idColumn: "move_id"),
        sharedTexts(of: .move),
        Table("stat", entity: .stat, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE"), .integer("is_battle_only", "NOT NULL"),
        ]),
        localizedNames("stat_name", of: .stat, idColumn: "stat_id"),
        Table("version", entity: .version, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE"), .text("version_group"),
        ]),
        localizedNames("version_name", of: .version, idColumn: "version_id"),
        Table("language", entity: .language, keyCount: 1, [
            .integer("id", "PRIMARY KEY"), .text("name", "NOT NULL UNIQUE"), .text("iso639"), .text("iso3166"),
            .integer("official", "NOT NULL"),
        ], storage: .table(lines: [5])),
        localizedNames("language_name", of: .language, idColumn: "language_id", languageColumn: "in_language"),
    ]

    /// `<kind>_name(<kind>_id*, language*, name)`: an entity's name in each language.
    private static func localizedNames(_ name: String, of entity: Entity, idColumn: String,
                                       languageColumn: String = "language") -> Table {
        Table(name, entity: entity, keyCount: 2, [
            .integer(idColumn, "NOT NULL"), .text(languageColumn, "NOT NULL"), .text("name", "NOT NULL"),
        ], storage: .table(lines: [3]))
    }

    /// `<kind>_text(<kind>_id*, language*, short_effect, flavor_text)`, a view over shared texts.
    private static func sharedTexts(of entity: Entity) -> Table {
        let kind = entity.rawValue
        return Table("\(kind)_text", entity: entity, keyCount: 2, [
            .integer("\(kind)_id"), .text("language"), .text("short_effect"), .text("flavor_text"),
        ], storage: .view(ddl: sharedTextDDL(kind)))
    }
}
