import Foundation

// The fields of the six reference kinds the device database needs (<doc:PokedexReader/DeviceDatabase#Reference-tables>: the
// reference tables). A move's `learned_by_pokemon` and a type's `pokemon`, most of
// their bytes, are never materialized.

/// `{"name": ..., "language": {"name": "ko"}}`: one localized name.
struct LocalizedName: Decodable {
    var name: String
    var language: NamedRef
}

struct TypeDocument: Decodable {
    struct DamageRelations: Decodable {
        var double_damage_to: [LinkRef]
        var half_damage_to: [LinkRef]
        var no_damage_to: [LinkRef]
    }

    var id: Int
    var name: String
    var generation: NamedRef?
    var names: [LocalizedName]
    var damage_relations: DamageRelations
}

/// An ability's or a move's texts: `effect_entries` (short effect by language) and
/// `flavor_text_entries` (by language and game, oldest game first).
struct EffectEntry: Decodable {
    var short_effect: String?
    var language: NamedRef
}

struct FlavorTextEntry: Decodable {
    var flavor_text: String
    var language: NamedRef
}

struct AbilityDocument: Decodable {
    var id: Int
    var name: String
    var generation: NamedRef?
    var is_main_series: Bool
    var names: [LocalizedName]
    var effect_entries: [EffectEntry]
    var flavor_text_entries: [FlavorTextEntry]
}

struct MoveDocument: Decodable {
    var id: Int
    var name: String
    var type: LinkRef?
    var damage_class: NamedRef?
    var power: Int?
    var accuracy: Int?
    var pp: Int?
    var priority: Int?
    var generation: NamedRef?
    var names: [LocalizedName]
    var effect_entries: [EffectEntry]
    var flavor_text_entries: [FlavorTextEntry]
}

struct StatDocument: Decodable {
    var id: Int
    var name: String
    var is_battle_only: Bool
    var names: [LocalizedName]
}

struct GameVersionDocument: Decodable {
    var id: Int
    var name: String
    var version_group: NamedRef?
    var names: [LocalizedName]
}

struct LanguageDocument: Decodable {
    var id: Int
    var name: String
    var iso639: String?
    var iso3166: String?
    var official: Bool
    var names: [LocalizedName]
}
