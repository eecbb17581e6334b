import Foundation
import PokeSyncCore
import PokedexReader

/// `show --json` (<doc:PokedexReader/Reader#Show-and-search-in-a-terminal>): id, name, types, height, weight, stats, abilities, moves,
/// sprites (key to bundled path or null), genus, flavor_text, evolution_chain,
/// type_defense (attacking type slug to factor); and the names of the pokemon, its
/// types, abilities, moves and stats in the chosen language (English where it has none).
///
/// Besides these curated fields, the other properties of ``PokemonDetail`` that a column
/// of `pokemon` gives, at the top level by column name (`base_experience`, `is_default`),
/// and those of ``SpeciesDetail`` that a column of `species` gives, by column name in
/// `species_facts` (null when the pokemon has no species). Each is written here by name:
/// a column carried to `show --json` is one line in ``SpeciesFacts`` or ``encode(to:)``
/// (<doc:PokedexReader/DeviceDatabase#Adding-a-column>).
struct ShowJSON: Encodable {
    struct Ability: Encodable {
        var name: String
        var slot: Int
        var isHidden: Bool
        var shortEffect: String?
        var flavorText: String?
        enum CodingKeys: String, CodingKey {
            case name, slot, isHidden = "is_hidden", shortEffect = "short_effect", flavorText = "flavor_text"
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(slot, forKey: .slot)
            try container.encode(isHidden, forKey: .isHidden)
            try container.encode(shortEffect, forKey: .shortEffect)
            try container.encode(flavorText, forKey: .flavorText)
        }
    }

    struct Text: Encodable {
        var text: String
        var language: String
    }

    struct FlavorText: Encodable {
        var text: String
        var language: String
        var version: String
        var versionName: String?
        enum CodingKeys: String, CodingKey { case text, language, version, versionName = "version_name" }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
            try container.encode(language, forKey: .language)
            try container.encode(version, forKey: .version)
            try container.encode(versionName, forKey: .versionName)
        }
    }

    /// One species of the evolution chain, with what leads to its children.
    struct Evolution: Encodable {
        var speciesID: Int
        var species: String?
        var pokemonID: Int?
        var pokemon: String?
        var trigger: String?
        var minLevel: Int?
        var item: String?
        var evolvesTo: [Evolution]
        enum CodingKeys: String, CodingKey {
            case speciesID = "species_id", species, pokemonID = "pokemon_id", pokemon, trigger, minLevel = "min_level", item
            case evolvesTo = "evolves_to"
        }
        init(_ node: EvolutionNode) {
            (speciesID, species, pokemonID, pokemon) = (node.speciesID, node.speciesName, node.defaultPokemonID, node.defaultPokemonName)
            (trigger, minLevel, item) = (node.trigger, node.minLevel, node.item)
            evolvesTo = node.children.map(Evolution.init)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(speciesID, forKey: .speciesID)
            try container.encode(species, forKey: .species)
            try container.encode(pokemonID, forKey: .pokemonID)
            try container.encode(pokemon, forKey: .pokemon)
            try container.encode(trigger, forKey: .trigger)
            try container.encode(minLevel, forKey: .minLevel)
            try container.encode(item, forKey: .item)
            try container.encode(evolvesTo, forKey: .evolvesTo)
        }
    }

    /// The `species` columns of ``SpeciesDetail``, by column name.
    struct SpeciesFacts: Encodable {
        let species: SpeciesDetail
        enum CodingKeys: String, CodingKey {
            case id, name, generation, evolutionChainID = "evolution_chain_id", isBaby = "is_baby", isLegendary = "is_legendary"
            case isMythical = "is_mythical", color, habitat, genderRate = "gender_rate", captureRate = "capture_rate"
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(species.id, forKey: .id)
            try container.encode(species.name, forKey: .name)
            try container.encode(species.generation, forKey: .generation)
            try container.encode(species.evolutionChainID, forKey: .evolutionChainID)
            try container.encode(species.isBaby, forKey: .isBaby)
            try container.encode(species.isLegendary, forKey: .isLegendary)
            try container.encode(species.isMythical, forKey: .isMythical)
            try container.encode(species.color, forKey: .color)
            try container.encode(species.habitat, forKey: .habitat)
            try container.encode(species.genderRate, forKey: .genderRate)
            try container.encode(species.captureRate, forKey: .captureRate)
        }
    }

    var id: Int
    var name: String
    var species: String?
    var localizedName: String?
    var types: [String]
    var typeNames: [String: String]
    var height: Int
    var weight: Int
    var stats: [String: Int]
    var statNames: [String: String]
    var abilities: [Ability]
    var abilityNames: [String: String]
    var moves: [String]
    var moveNames: [String: String]
    /// Sprite key to its path in the bundle, null when not bundled.
    var sprites: [String: String?]
    var genus: Text?
    var flavorText: FlavorText?
    var evolutionChain: Evolution?
    /// Every attacking type's slug to its factor against this pokemon.
    var typeDefense: [String: Double]
    /// The other `pokemon` columns the model carries.
    var baseExperience: Int?
    var isDefault: Bool
    var speciesFacts: SpeciesFacts?

    enum CodingKeys: String, CodingKey {
        case id, name, species, localizedName = "localized_name", types, typeNames = "type_names", height, weight
        case stats, statNames = "stat_names", abilities, abilityNames = "ability_names", moves, moveNames = "move_names"
        case sprites, genus, flavorText = "flavor_text", evolutionChain = "evolution_chain", typeDefense = "type_defense"
        case speciesFacts = "species_facts", baseExperience = "base_experience", isDefault = "is_default"
    }

    init(_ detail: PokemonDetail, defense: TypeDefense? = nil) {
        func names<T>(_ items: [T], _ key: (T) -> String, _ name: (T) -> LocalizedText?) -> [String: String] {
            Dictionary(items.map { (key($0), name($0)?.text ?? key($0)) }, uniquingKeysWith: { first, _ in first })
        }
        id = detail.id
        name = detail.name
        species = detail.species?.name
        localizedName = detail.species?.localizedName?.text
        types = detail.types
        typeNames = names(detail.localizedTypes, \.name, \.localizedName)
        height = detail.height
        weight = detail.weight
        stats = detail.baseStats
        statNames = names(detail.stats, \.name, \.localizedName)
        abilities = detail.abilities.map {
            Ability(name: $0.name, slot: $0.slot, isHidden: $0.isHidden, shortEffect: $0.shortEffect?.text, flavorText: $0.flavorText?.text)
        }
        abilityNames = names(detail.abilities, \.name, \.localizedName)
        moves = detail.moves
        moveNames = names(detail.moveDetails, \.name, \.localizedName)
        sprites = Dictionary(detail.sprites.map { ($0.key, $0.path) }, uniquingKeysWith: { _, last in last })
        genus = detail.species?.genus.map { Text(text: $0.text, language: $0.language) }
        flavorText = detail.species?.flavorText.map {
            FlavorText(text: $0.text, language: $0.language, version: $0.version, versionName: $0.versionName?.text)
        }
        evolutionChain = detail.species?.evolutionChain.map(Evolution.init)
        typeDefense = Dictionary((defense?.factors ?? []).map { ($0.type.name, $0.factor) }, uniquingKeysWith: { _, last in last })
        baseExperience = detail.baseExperience
        isDefault = detail.isDefault
        speciesFacts = detail.species.map(SpeciesFacts.init)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(species, forKey: .species)  // nulls are written, not left out
        try container.encode(localizedName, forKey: .localizedName)
        try container.encode(types, forKey: .types)
        try container.encode(typeNames, forKey: .typeNames)
        try container.encode(height, forKey: .height)
        try container.encode(weight, forKey: .weight)
        try container.encode(stats, forKey: .stats)
        try container.encode(statNames, forKey: .statNames)
        try container.encode(abilities, forKey: .abilities)
        try container.encode(abilityNames, forKey: .abilityNames)
        try container.encode(moves, forKey: .moves)
        try container.encode(moveNames, forKey: .moveNames)
        try container.encode(sprites, forKey: .sprites)
        try container.encode(genus, forKey: .genus)
        try container.encode(flavorText, forKey: .flavorText)
        try container.encode(evolutionChain, forKey: .evolutionChain)
        try container.encode(typeDefense, forKey: .typeDefense)
        try container.encode(speciesFacts, forKey: .speciesFacts)
        try container.encode(baseExperience, forKey: .baseExperience)
        try container.encode(isDefault, forKey: .isDefault)
    }
}

/// One line of JSON for `show` and `search`: sorted keys, slashes as they are.
enum JSONLine {
    static func string(_ value: some Encodable) throws -> String {
        String(decoding: try BundleJSON.data(value, pretty: false), as: UTF8.self)
    }
}
