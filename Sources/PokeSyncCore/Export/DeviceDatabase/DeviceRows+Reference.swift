import Foundation
import PokeSQLite

extension DeviceRow {
    /// A row of `type` (`Type` is Swift's metatype).
    struct TypeInfo: DeviceTableRow {
        var id: Int
        var name: String
        var generation: String?
    }

    /// A row of `type_efficacy`: 200, 50 or 0 (an unlisted pair is 100, and has no row).
    struct TypeEfficacy: DeviceTableRow {
        var attackingTypeID: Int
        var defendingTypeID: Int
        var factor: Int
    }

    /// A row of `ability`.
    struct Ability: DeviceTableRow {
        var id: Int
        var name: String
        var generation: String?
        var isMainSeries: Bool
    }

    /// A row of `move`.
    struct Move: DeviceTableRow {
        var id: Int
        var name: String
        var typeID: Int?
        var damageClass: String?
        var power: Int?
        var accuracy: Int?
        var pp: Int?
        var priority: Int?
        var generation: String?
    }

    /// A row of `stat`.
    struct Stat: DeviceTableRow {
        var id: Int
        var name: String
        var isBattleOnly: Bool
    }

    /// A row of `version` (a game).
    struct Version: DeviceTableRow {
        var id: Int
        var name: String
        var versionGroup: String?
    }

    /// A row of `language`.
    struct Language: DeviceTableRow {
        var id: Int
        var name: String
        var iso639: String?
        var iso3166: String?
        var official: Bool
    }

    /// A row of a reference kind's names: `type_name`, `ability_name`, `move_name`,
    /// `stat_name`, `version_name`, and `language_name`, whose `language` column is
    /// `in_language` (the language the name is written in).
    struct Name: LocalizedDeviceRow {
        var id: Int
        var language: String
        var name: String

        /// `id` and `language` are the table's key columns: `type_id`, `ability_id`, ...;
        /// `language_name`'s language is `in_language`.
        func encode(to encoder: any Encoder) throws {
            let key = encoder.deviceTable.keyColumns
            var columns = encoder.container(keyedBy: ColumnName.self)
            try columns.encode(id, forKey: ColumnName(key[key.startIndex]))
            try columns.encode(language, forKey: ColumnName(key[key.startIndex + 1]))
            try columns.encode(name, forKey: ColumnName("name"))
        }
    }

    /// A row of `ability_text` or `move_text` (views over `<kind>_text_link` and `<kind>_text_body`).
    struct Text: LocalizedDeviceRow {
        var id: Int
        var language: String
        var shortEffect: String?
        /// The newest game's flavor text, cleaned by `FlavorTextRule.clean`.
        var flavorText: String?

        /// `id` is the table's first key column: `ability_id` or `move_id`.
        func encode(to encoder: any Encoder) throws {
            var columns = encoder.container(keyedBy: ColumnName.self)
            try columns.encode(id, forKey: ColumnName(encoder.deviceTable.columns[0]))
            try columns.encode(language, forKey: ColumnName("language"))
            try columns.encodeIfPresent(shortEffect, forKey: ColumnName("short_effect"))
            try columns.encodeIfPresent(flavorText, forKey: ColumnName("flavor_text"))
        }
    }
}

/// The rows of the six reference kinds (<doc:PokedexReader/DeviceDatabase#Reference-tables>). Every language is
/// kept here; the profile's filter comes later. Within a document, rows go in key order.
extension DeviceRows {
    static func type(_ document: TypeDocument) -> DeviceRows {
        var rows = DeviceRows()
        rows.types = [DeviceRow.TypeInfo(id: document.id, name: document.name, generation: document.generation?.name)]
        rows.typeNames = names(document.id, document.names)
        // double_damage_to 200, half_damage_to 50, no_damage_to 0; unlisted pairs are 100, no row.
        var efficacy = KeyedRows<Int, DeviceRow.TypeEfficacy>()
        let relations = document.damage_relations
        for (targets, factor) in [(relations.double_damage_to, 200), (relations.half_damage_to, 50),
                                  (relations.no_damage_to, 0)] {
            for target in targets {
                guard let defending = target.id else { continue }
                efficacy.add(defending, DeviceRow.TypeEfficacy(attackingTypeID: document.id, defendingTypeID: defending,
                                                               factor: factor))
            }
        }
        rows.typeEfficacies = efficacy.sorted
        return rows
    }

    static func ability(_ document: AbilityDocument) -> DeviceRows {
        var rows = DeviceRows()
        rows.abilities = [DeviceRow.Ability(id: document.id, name: document.name, generation: document.generation?.name,
                                            isMainSeries: document.is_main_series)]
        rows.abilityNames = names(document.id, document.names)
        rows.abilityTexts = texts(document.id, document.effect_entries, document.flavor_text_entries)
        return rows
    }

    static func move(_ document: MoveDocument) -> DeviceRows {
        var rows = DeviceRows()
        rows.moves = [DeviceRow.Move(id: document.id, name: document.name, typeID: document.type?.id,
                                     damageClass: document.damage_class?.name, power: document.power,
                                     accuracy: document.accuracy, pp: document.pp, priority: document.priority,
                                     generation: document.generation?.name)]
        rows.moveNames = names(document.id, document.names)
        rows.moveTexts = texts(document.id, document.effect_entries, document.flavor_text_entries)
        return rows
    }

    static func stat(_ document: StatDocument) -> DeviceRows {
        var rows = DeviceRows()
        rows.stats = [DeviceRow.Stat(id: document.id, name: document.name, isBattleOnly: document.is_battle_only)]
        rows.statNames = names(document.id, document.names)
        return rows
    }

    static func version(_ document: GameVersionDocument) -> DeviceRows {
        var rows = DeviceRows()
        rows.versions = [DeviceRow.Version(id: document.id, name: document.name,
                                           versionGroup: document.version_group?.name)]
        rows.versionNames = names(document.id, document.names)
        return rows
    }

    static func language(_ document: LanguageDocument) -> DeviceRows {
        var rows = DeviceRows()
        rows.languages = [DeviceRow.Language(id: document.id, name: document.name, iso639: document.iso639,
                                             iso3166: document.iso3166, official: document.official)]
        rows.languageNames = names(document.id, document.names)
        return rows
    }

    /// The first name of each language, in language order.
    private static func names(_ id: Int, _ names: [LocalizedName]) -> [DeviceRow.Name] {
        var keyed = KeyedRows<String, DeviceRow.Name>()
        for entry in names {
            keyed.add(entry.language.name, DeviceRow.Name(id: id, language: entry.language.name, name: entry.name))
        }
        return keyed.sorted
    }

    /// One row per language having either: the first short effect of the language, and
    /// its last flavor text (the list runs oldest game first, so the last is the newest
    /// game's), cleaned.
    private static func texts(_ id: Int, _ effects: [EffectEntry], _ flavors: [FlavorTextEntry]) -> [DeviceRow.Text] {
        var shortEffects: [String: String] = [:]
        for entry in effects where shortEffects[entry.language.name] == nil {
            if let text = entry.short_effect { shortEffects[entry.language.name] = text }
        }
        var flavorTexts: [String: String] = [:]
        for entry in flavors { flavorTexts[entry.language.name] = entry.flavor_text }
        let languages = Set(shortEffects.keys).union(flavorTexts.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return languages.map { language in
            DeviceRow.Text(id: id, language: language, shortEffect: shortEffects[language],
                           flavorText: flavorTexts[language].map(FlavorTextRule.clean))
        }
    }
}
