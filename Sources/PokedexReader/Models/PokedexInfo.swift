/// A pokedex (a region's, a game's) for a pokedex picker.
public struct PokedexInfo: Sendable, Hashable, Codable, Identifiable {
    /// The id.
    public let id: Int
    /// The slug (`original-melemele`).
    public let name: String
    /// The region (`alola`), when it has one.
    public let region: String?
    /// Whether it belongs to the main game series.
    public let isMainSeries: Bool
    /// `pokedex_description` in the first preferred language that has one, else English.
    public let description: LocalizedText?
    /// How many entries it lists.
    public let entryCount: Int
}

/// One entry of a pokedex, in entry order.
public struct PokedexEntry: Sendable, Hashable, Codable {
    /// The number in this pokedex.
    public let entryNumber: Int
    /// The species id.
    public let speciesID: Int
    /// The species' slug, nil when the database lacks the species.
    public let speciesName: String?
    /// The species' default pokemon, for the list cell; nil when the database has none.
    public let pokemon: PokemonSummary?
}

extension PokedexInfo {
    /// The `pokedex` columns ``init(row:description:entryCount:)`` reads.
    static let columns = ["id", "name", "region", "is_main_series"]

    /// A pokedex from its `pokedex` row (``columns``), its description and entry count.
    init(row: ReadRow, description: LocalizedText?, entryCount: Int) throws {
        id = try row.int("id")
        name = try row.text("name")
        region = try row.optionalText("region")
        isMainSeries = try row.bool("is_main_series")
        self.description = description
        self.entryCount = entryCount
    }
}

extension PokedexEntry {
    /// The `pokedex_entry` columns ``init(row:speciesName:pokemon:)`` reads.
    static let columns = ["entry_number", "species_id"]

    /// An entry from its `pokedex_entry` row (``columns``), its species' slug and pokemon.
    init(row: ReadRow, speciesName: String?, pokemon: PokemonSummary?) throws {
        entryNumber = try row.int("entry_number")
        speciesID = try row.int("species_id")
        self.speciesName = speciesName
        self.pokemon = pokemon
    }
}
