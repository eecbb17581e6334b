import PokeSQLite

/// The rows of the device tables (DESIGN "The device database"): one typed array per
/// table, each in the order its rows were added. Each document gives its own
/// `DeviceRows` (documents convert independently, so they can be decoded in parallel);
/// the builder appends them in kind and id order, which is key order for every table.
///
/// A row type (`DeviceRow.Pokemon`, ...) has a field per column and gives `values` in
/// the schema's column order, so a column added to a table is a compile error in its
/// converter; `DeviceRowsTests` holds each row's values to its table's column count.
struct DeviceRows {
    var pokemon: [DeviceRow.Pokemon] = []
    var pokemonTypes: [DeviceRow.PokemonType] = []
    var pokemonStats: [DeviceRow.PokemonStat] = []
    var pokemonAbilities: [DeviceRow.PokemonAbility] = []
    var pokemonMoves: [DeviceRow.PokemonMove] = []
    var pokemonSprites: [DeviceRow.PokemonSprite] = []
    var species: [DeviceRow.Species] = []
    var speciesNames: [DeviceRow.SpeciesName] = []
    var speciesFlavorTexts: [DeviceRow.SpeciesFlavorText] = []
    var pokedexes: [DeviceRow.Pokedex] = []
    var pokedexEntries: [DeviceRow.PokedexEntry] = []
    var pokedexDescriptions: [DeviceRow.PokedexDescription] = []
    var evolutionChains: [DeviceRow.EvolutionChain] = []
    var evolutionSteps: [DeviceRow.EvolutionStep] = []
    var types: [DeviceRow.TypeInfo] = []
    var typeNames: [DeviceRow.Name] = []
    var typeEfficacies: [DeviceRow.TypeEfficacy] = []
    var abilities: [DeviceRow.Ability] = []
    var abilityNames: [DeviceRow.Name] = []
    var abilityTexts: [DeviceRow.Text] = []
    var moves: [DeviceRow.Move] = []
    var moveNames: [DeviceRow.Name] = []
    var moveTexts: [DeviceRow.Text] = []
    var stats: [DeviceRow.Stat] = []
    var statNames: [DeviceRow.Name] = []
    var versions: [DeviceRow.Version] = []
    var versionNames: [DeviceRow.Name] = []
    var languages: [DeviceRow.Language] = []
    var languageNames: [DeviceRow.Name] = []

    /// Hands every table's rows to `visitor`, by table name, in DESIGN's order. The one
    /// list of the tables: writing and merging go through it.
    mutating func visitTables(_ visitor: inout some DeviceTableVisitor) throws {
        try visitor.visit("pokemon", &pokemon)
        try visitor.visit("pokemon_type", &pokemonTypes)
        try visitor.visit("pokemon_stat", &pokemonStats)
        try visitor.visit("pokemon_ability", &pokemonAbilities)
        try visitor.visit("pokemon_move", &pokemonMoves)
        try visitor.visit("pokemon_sprite", &pokemonSprites)
        try visitor.visit("species", &species)
        try visitor.visit("species_name", &speciesNames)
        try visitor.visit("species_flavor_text", &speciesFlavorTexts)
        try visitor.visit("pokedex", &pokedexes)
        try visitor.visit("pokedex_entry", &pokedexEntries)
        try visitor.visit("pokedex_description", &pokedexDescriptions)
        try visitor.visit("evolution_chain", &evolutionChains)
        try visitor.visit("evolution_step", &evolutionSteps)
        try visitor.visit("type", &types)
        try visitor.visit("type_name", &typeNames)
        try visitor.visit("type_efficacy", &typeEfficacies)
        try visitor.visit("ability", &abilities)
        try visitor.visit("ability_name", &abilityNames)
        try visitor.visit("ability_text", &abilityTexts)
        try visitor.visit("move", &moves)
        try visitor.visit("move_name", &moveNames)
        try visitor.visit("move_text", &moveTexts)
        try visitor.visit("stat", &stats)
        try visitor.visit("stat_name", &statNames)
        try visitor.visit("version", &versions)
        try visitor.visit("version_name", &versionNames)
        try visitor.visit("language", &languages)
        try visitor.visit("language_name", &languageNames)
    }

    /// Appends every table's rows of `other` after this one's.
    mutating func append(contentsOf other: DeviceRows) {
        // Both visits go through the tables in the same order: the first collects
        // `other`'s arrays, the second appends each to the same table here.
        var other = other
        var collector = Collector()
        var appender = Appender()
        do {
            try other.visitTables(&collector)
            appender.collected = collector.tables
            try visitTables(&appender)
        } catch {
            preconditionFailure("collecting and appending rows does not throw")
        }
    }

    /// Removes the rows of the localized tables (DESIGN: every table with a language
    /// column, and `language_name` by `in_language`) whose language `keeps` rejects.
    /// - Returns: every language code those rows had before, as the API spells them.
    mutating func keepLanguages(where keeps: (String) -> Bool) -> Set<String> {
        var present = Set<String>()
        func filter<Row: LocalizedDeviceRow>(_ rows: inout [Row]) {
            for row in rows { present.insert(row.language) }
            rows.removeAll { !keeps($0.language) }
        }
        filter(&speciesNames)
        filter(&speciesFlavorTexts)
        filter(&pokedexDescriptions)
        filter(&typeNames)
        filter(&abilityNames)
        filter(&abilityTexts)
        filter(&moveNames)
        filter(&moveTexts)
        filter(&statNames)
        filter(&versionNames)
        filter(&languageNames)
        return present
    }
}

/// The rows of one device table type.
enum DeviceRow {}

/// A row of a device table: what the writer inserts.
protocol DeviceTableRow: Sendable {
    /// The row's values in the table's column order (DeviceSchema's columns).
    var values: [SQLValue] { get }
}

/// A row of a table with a language column, which a profile's languages filter.
protocol LocalizedDeviceRow: DeviceTableRow {
    /// The language code, as the API spells it.
    var language: String { get }
}

/// Takes each table's rows in turn, typed: the writer, a merge.
protocol DeviceTableVisitor {
    mutating func visit<Row: DeviceTableRow>(_ table: String, _ rows: inout [Row]) throws
}

extension DeviceRows {
    /// Each table's array, in visiting order (an array in `Any` is its buffer, not a copy).
    private struct Collector: DeviceTableVisitor {
        var tables: [Any] = []
        mutating func visit<Row: DeviceTableRow>(_ table: String, _ rows: inout [Row]) throws { tables.append(rows) }
    }

    /// Appends the collected arrays to the tables visited in the same order.
    private struct Appender: DeviceTableVisitor {
        var collected: [Any] = []
        var next = 0
        mutating func visit<Row: DeviceTableRow>(_ table: String, _ rows: inout [Row]) throws {
            rows.append(contentsOf: collected[next] as! [Row])
            next += 1
        }
    }
}

/// Builds rows with one value per key, the first seen kept, in key order: the API's lists
/// are in game or slot order, which is not always key order, and a key may repeat.
struct KeyedRows<Key: Hashable & Comparable, Row> {
    private var rows: [Key: Row] = [:]

    /// Adds `row` unless a row with `key` is already there.
    mutating func add(_ key: Key, _ row: @autoclosure () -> Row) {
        if rows[key] == nil { rows[key] = row() }
    }

    /// The rows in key order.
    var sorted: [Row] { rows.sorted { $0.key < $1.key }.map(\.value) }
}
