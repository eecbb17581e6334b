import Foundation
import PokeSQLite

/// The rows of the six reference kinds (DESIGN, the reference tables). Every language is
/// kept here; the profile's filter comes later. Within a document, rows go in key order.
extension DeviceRows {
    static func type(_ document: TypeDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("type", [id, .text(document.name), SQLValue(document.generation?.name)])
        rows.appendNames("type_name", id, document.names)
        // double_damage_to 200, half_damage_to 50, no_damage_to 0; unlisted pairs are 100, no row.
        var efficacy = KeyedRows<Int>()
        let relations = document.damage_relations
        for (targets, factor) in [(relations.double_damage_to, 200), (relations.half_damage_to, 50),
                                  (relations.no_damage_to, 0)] {
            for target in targets {
                guard let defending = target.id else { continue }
                efficacy.add(defending, [id, SQLValue(defending), SQLValue(factor)])
            }
        }
        for row in efficacy.sorted { rows.append("type_efficacy", row) }
        return rows
    }

    static func ability(_ document: AbilityDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("ability", [id, .text(document.name), SQLValue(document.generation?.name),
                                SQLValue(document.is_main_series)])
        rows.appendNames("ability_name", id, document.names)
        rows.appendTexts("ability_text", id, document.effect_entries, document.flavor_text_entries)
        return rows
    }

    static func move(_ document: MoveDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("move", [id, .text(document.name), SQLValue(document.type?.id), SQLValue(document.damage_class?.name),
                             SQLValue(document.power), SQLValue(document.accuracy), SQLValue(document.pp),
                             SQLValue(document.priority), SQLValue(document.generation?.name)])
        rows.appendNames("move_name", id, document.names)
        rows.appendTexts("move_text", id, document.effect_entries, document.flavor_text_entries)
        return rows
    }

    static func stat(_ document: StatDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("stat", [id, .text(document.name), SQLValue(document.is_battle_only)])
        rows.appendNames("stat_name", id, document.names)
        return rows
    }

    static func version(_ document: GameVersionDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("version", [id, .text(document.name), SQLValue(document.version_group?.name)])
        rows.appendNames("version_name", id, document.names)
        return rows
    }

    static func language(_ document: LanguageDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("language", [id, .text(document.name), SQLValue(document.iso639), SQLValue(document.iso3166),
                                 SQLValue(document.official)])
        rows.appendNames("language_name", id, document.names)
        return rows
    }

    /// `[id, language, name]` rows, the first name of each language kept, in language order.
    private mutating func appendNames(_ table: String, _ id: SQLValue, _ names: [LocalizedName]) {
        var keyed = KeyedRows<String>()
        for entry in names { keyed.add(entry.language.name, [id, .text(entry.language.name), .text(entry.name)]) }
        for row in keyed.sorted { append(table, row) }
    }

    /// `[id, language, short_effect, flavor_text]` rows, one per language having either:
    /// the first short effect of the language, and its last flavor text (the list runs
    /// oldest game first, so the last is the newest game's), cleaned.
    private mutating func appendTexts(_ table: String, _ id: SQLValue, _ effects: [EffectEntry],
                                      _ flavors: [FlavorTextEntry]) {
        var shortEffects: [String: String] = [:]
        for entry in effects where shortEffects[entry.language.name] == nil {
            if let text = entry.short_effect { shortEffects[entry.language.name] = text }
        }
        var flavorTexts: [String: String] = [:]
        for entry in flavors { flavorTexts[entry.language.name] = entry.flavor_text }
        let languages = Set(shortEffects.keys).union(flavorTexts.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for language in languages {
            append(table, [id, .text(language), SQLValue(shortEffects[language]),
                           SQLValue(flavorTexts[language].map(Self.cleanFlavorText))])
        }
    }
}
