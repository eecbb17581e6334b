/// Everything a detail page shows about one pokemon.
public struct PokemonDetail: Sendable, Hashable, Codable, Identifiable {
    /// The id.
    public let id: Int
    /// The API's name (`giratina-altered`).
    public let name: String
    /// Type slugs in slot order.
    public let types: [String]
    /// Height in decimetres, as the API gives it.
    public let height: Int
    /// Weight in hectograms, as the API gives it.
    public let weight: Int
    /// The experience a defeated pokemon gives, when the API states it.
    public let baseExperience: Int?
    /// Whether this is its species' default form.
    public let isDefault: Bool
    /// Abilities in slot order; hidden ones marked.
    public let abilities: [PokemonAbility]
    /// Move slugs, sorted.
    public let moves: [String]
    /// The types with their localized names, in slot order (a type the bundle does not
    /// describe has id 0 and no name).
    public let localizedTypes: [PokemonType]
    /// The moves with their localized names and facts, by slug (a move the bundle does
    /// not describe has only its slug).
    public let moveDetails: [PokemonMove]
    /// Base stats in game order (hp, attack, defense, special-attack, special-defense, speed).
    public let stats: [PokemonStat]
    /// Every sprite with a URL, sorted by key.
    public let sprites: [PokemonSprite]
    /// The species, nil only when the database lacks it (never in a checked bundle).
    public let species: SpeciesDetail?

    /// Base stats by stat name (`"hp": 35`).
    public var baseStats: [String: Int] {
        Dictionary(stats.map { ($0.name, $0.baseStat) }, uniquingKeysWith: { first, _ in first })
    }

    /// The sprite at `key` (`front_default`, `other/home/front_female`), if the pokemon has one.
    public func sprite(_ key: String) -> PokemonSprite? { sprites.first { $0.key == key } }

    /// The front sprite and its female variant.
    public var front: SpritePair? { pair("front_default", "front_female") }
    /// The back sprite and its female variant.
    public var back: SpritePair? { pair("back_default", "back_female") }
    /// The shiny front sprite and its female variant.
    public var frontShiny: SpritePair? { pair("front_shiny", "front_shiny_female") }
    /// The shiny back sprite and its female variant.
    public var backShiny: SpritePair? { pair("back_shiny", "back_shiny_female") }
    /// Whether male and female sprites differ (there is a female front sprite).
    public var hasFemaleSprites: Bool { sprite("front_female") != nil }

    private func pair(_ key: String, _ femaleKey: String) -> SpritePair? {
        sprite(key).map { SpritePair(default: $0, female: sprite(femaleKey)) }
    }
}

/// One ability of a pokemon.
public struct PokemonAbility: Sendable, Hashable, Codable {
    /// Makes a value from its parts (for previews and tests; the reader makes its own).
    public init(name: String, slot: Int, isHidden: Bool, localizedName: LocalizedText? = nil,
                shortEffect: LocalizedText? = nil, flavorText: LocalizedText? = nil) {
        self.name = name
        self.slot = slot
        self.isHidden = isHidden
        self.localizedName = localizedName
        self.shortEffect = shortEffect
        self.flavorText = flavorText
    }


    /// The ability's slug (`lightning-rod`).
    public let name: String
    /// The slot (1-3; 3 is the hidden ability's).
    public let slot: Int
    /// A hidden ability (obtained only in special ways).
    public let isHidden: Bool
    /// The ability's name in the first preferred language the data has, else English.
    public let localizedName: LocalizedText?
    /// Its short effect, in the first preferred language that has one, else English.
    public let shortEffect: LocalizedText?
    /// Its newest game's flavor text, in the first preferred language that has one, else English.
    public let flavorText: LocalizedText?
}

/// One base stat of a pokemon.
public struct PokemonStat: Sendable, Hashable, Codable {
    /// Makes a value from its parts (for previews and tests; the reader makes its own).
    public init(name: String, baseStat: Int, effort: Int, localizedName: LocalizedText? = nil) {
        self.name = name
        self.baseStat = baseStat
        self.effort = effort
        self.localizedName = localizedName
    }


    /// The stat's slug (`special-attack`).
    public let name: String
    /// The base value.
    public let baseStat: Int
    /// The effort values a defeated pokemon gives in this stat.
    public let effort: Int
    /// The stat's name in the first preferred language the data has, else English (`스피드`).
    public let localizedName: LocalizedText?
}

/// The species part of a detail page, in the chosen language.
public struct SpeciesDetail: Sendable, Hashable, Codable {
    /// The id.
    public let id: Int
    /// The species' slug (`giratina`).
    public let name: String
    /// The species' name in the first preferred language that has one, else English.
    public let localizedName: LocalizedText?
    /// The genus (`Mouse Pokémon`), same language choice.
    public let genus: LocalizedText?
    /// The Pokedex entries in the chosen language, newest game first; the first is the one
    /// to show.
    public let flavorTexts: [FlavorText]
    /// The generation that introduced it (`generation-i`).
    public let generation: String?
    /// The id of its evolution chain (``Pokedex/evolutionChain(id:languages:)``); nil when
    /// the API gives none.
    public let evolutionChainID: Int?
    /// The Pokedex color (`yellow`).
    public let color: String?
    /// The habitat (`forest`), when the API gives one.
    public let habitat: String?
    /// A baby pokemon (`pichu`).
    public let isBaby: Bool
    /// A legendary pokemon.
    public let isLegendary: Bool
    /// A mythical pokemon.
    public let isMythical: Bool
    /// Female chance in eighths, -1 for genderless.
    public let genderRate: Int?
    /// The capture rate (0-255).
    public let captureRate: Int?
    /// The evolution chain as a tree from its root species; nil when the species has none
    /// in the database.
    public let evolutionChain: EvolutionNode?

    /// The entry to show: the newest game's, in the chosen language.
    public var flavorText: FlavorText? { flavorTexts.first }
}

/// A text and the language code it is in (the API's code, as stored: `zh-hant`).
public struct LocalizedText: Sendable, Hashable, Codable {
    /// Makes a value from its parts (for previews and tests; the reader makes its own).
    public init(text: String, language: String) {
        self.text = text
        self.language = language
    }


    /// The text.
    public let text: String
    /// The API language code, as stored (`zh-hant`).
    public let language: String
}

/// One Pokedex entry of a species: a game's text.
public struct FlavorText: Sendable, Hashable, Codable {
    /// Makes a value from its parts (for previews and tests; the reader makes its own).
    public init(text: String, language: String, version: String, entryIndex: Int, versionName: LocalizedText? = nil) {
        self.text = text
        self.language = language
        self.version = version
        self.entryIndex = entryIndex
        self.versionName = versionName
    }


    /// The text.
    public let text: String
    /// The API language code, as stored (`zh-hant`).
    public let language: String
    /// The game (`shield`).
    public let version: String
    /// The position in the API's list: higher is a newer game.
    public let entryIndex: Int
    /// The game's name in the first preferred language the data has, else English (`Shield`).
    public let versionName: LocalizedText?
}

extension PokemonDetail {
    /// The `pokemon` columns ``init(row:localizedTypes:abilities:moveDetails:stats:sprites:species:)`` reads.
    static let columns = ["id", "name", "height", "weight", "base_experience", "is_default"]

    /// A detail from its `pokemon` row (``columns``) and the parts other tables give.
    init(row: ReadRow, localizedTypes: [PokemonType], abilities: [PokemonAbility], moveDetails: [PokemonMove],
         stats: [PokemonStat], sprites: [PokemonSprite], species: SpeciesDetail?) throws {
        id = try row.int("id")
        name = try row.text("name")
        height = try row.int("height")
        weight = try row.int("weight")
        baseExperience = try row.optionalInt("base_experience")
        isDefault = try row.bool("is_default")
        types = localizedTypes.map(\.name)
        self.localizedTypes = localizedTypes
        self.abilities = abilities
        // The slugs in the same order (by move) as the details that carry them.
        moves = moveDetails.map(\.name)
        self.moveDetails = moveDetails
        self.stats = stats
        self.sprites = sprites
        self.species = species
    }
}

extension PokemonAbility {
    /// The `pokemon_ability` columns ``init(row:localizedName:shortEffect:flavorText:)`` reads.
    static let columns = ["slot", "ability", "is_hidden"]

    /// An ability from its `pokemon_ability` row (``columns``) and its texts.
    init(row: ReadRow, localizedName: LocalizedText?, shortEffect: LocalizedText?, flavorText: LocalizedText?) throws {
        self.init(name: try row.text("ability"), slot: try row.int("slot"), isHidden: try row.bool("is_hidden"),
                  localizedName: localizedName, shortEffect: shortEffect, flavorText: flavorText)
    }
}

extension PokemonStat {
    /// The `pokemon_stat` columns ``init(row:localizedName:)`` reads.
    static let columns = ["stat", "base_stat", "effort"]

    /// A stat from its `pokemon_stat` row (``columns``) and its name.
    init(row: ReadRow, localizedName: LocalizedText?) throws {
        self.init(name: try row.text("stat"), baseStat: try row.int("base_stat"), effort: try row.int("effort"),
                  localizedName: localizedName)
    }
}

extension SpeciesDetail {
    /// The `species` columns ``init(row:localizedName:genus:flavorTexts:evolutionChain:)`` reads.
    static let columns = ["id", "name", "generation", "evolution_chain_id", "is_baby", "is_legendary", "is_mythical",
                          "color", "habitat", "gender_rate", "capture_rate"]

    /// A species from its `species` row (``columns``) and the parts other tables give.
    init(row: ReadRow, localizedName: LocalizedText?, genus: LocalizedText?, flavorTexts: [FlavorText],
         evolutionChain: EvolutionNode?) throws {
        id = try row.int("id")
        name = try row.text("name")
        generation = try row.optionalText("generation")
        evolutionChainID = try row.optionalInt("evolution_chain_id")
        isBaby = try row.bool("is_baby")
        isLegendary = try row.bool("is_legendary")
        isMythical = try row.bool("is_mythical")
        color = try row.optionalText("color")
        habitat = try row.optionalText("habitat")
        genderRate = try row.optionalInt("gender_rate")
        captureRate = try row.optionalInt("capture_rate")
        self.localizedName = localizedName
        self.genus = genus
        self.flavorTexts = flavorTexts
        self.evolutionChain = evolutionChain
    }
}

extension FlavorText {
    /// The `species_flavor_text` columns ``init(row:versionName:)`` reads.
    static let columns = ["language", "version", "entry_index", "text"]

    /// A flavor text from its `species_flavor_text` row (``columns``) and its game's name.
    init(row: ReadRow, versionName: LocalizedText?) throws {
        self.init(text: try row.text("text"), language: try row.text("language"), version: try row.text("version"),
                  entryIndex: try row.int("entry_index"), versionName: versionName)
    }
}
