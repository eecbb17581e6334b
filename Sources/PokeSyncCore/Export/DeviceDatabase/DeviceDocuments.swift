import Foundation

// The few fields of each document kind the device database needs. Decoding into these
// small structs skips the rest (a pokemon's `moves[].version_group_details`, most of
// its bytes, is never materialized): several times faster than a whole JSON tree.

/// `{"name": ...}`: a named link whose id is not needed.
struct NamedRef: Decodable {
    var name: String
}

/// `{"url": "/api/v2/kind/ID/"}`: a link whose id is needed.
struct LinkRef: Decodable {
    var url: String
    var name: String?

    /// The integer id at the end of the URL.
    var id: Int? { ListedResource.id(fromURL: url) }
}

struct PokemonDocument: Decodable {
    struct TypeSlot: Decodable { var slot: Int; var type: NamedRef }
    struct Stat: Decodable { var stat: NamedRef; var base_stat: Int; var effort: Int }
    struct AbilitySlot: Decodable { var slot: Int; var ability: NamedRef; var is_hidden: Bool }
    struct Move: Decodable { var move: NamedRef }

    var id: Int
    var name: String
    var species: LinkRef
    var height: Int?
    var weight: Int?
    var base_experience: Int?
    var is_default: Bool
    var order: Int?
    var types: [TypeSlot]
    var stats: [Stat]
    var abilities: [AbilitySlot]
    var moves: [Move]
}

struct SpeciesDocument: Decodable {
    struct Name: Decodable { var name: String; var language: NamedRef }
    struct Genus: Decodable { var genus: String; var language: NamedRef }
    struct FlavorText: Decodable { var flavor_text: String; var language: NamedRef; var version: NamedRef? }

    var id: Int
    var name: String
    var generation: NamedRef?
    var evolution_chain: LinkRef?
    var evolves_from_species: LinkRef?
    var is_baby: Bool
    var is_legendary: Bool
    var is_mythical: Bool
    var color: NamedRef?
    var habitat: NamedRef?
    var gender_rate: Int?
    var capture_rate: Int?
    var names: [Name]
    var genera: [Genus]
    var flavor_text_entries: [FlavorText]
}

struct PokedexDocument: Decodable {
    struct Entry: Decodable { var entry_number: Int; var pokemon_species: LinkRef }
    struct Description: Decodable { var description: String; var language: NamedRef }

    var id: Int
    var name: String
    var region: NamedRef?
    var is_main_series: Bool
    var pokemon_entries: [Entry]
    var descriptions: [Description]
}

struct EvolutionChainDocument: Decodable {
    /// One node of the chain: a species, how it is reached, what it evolves into.
    struct Link: Decodable {
        var species: LinkRef
        var evolution_details: [JSONValue]
        var evolves_to: [Link]
    }

    var id: Int
    var baby_trigger_item: NamedRef?
    var chain: Link
}
