import PokedexReader

/// The rows of the device tables (<doc:PokedexReader/DeviceDatabase>): one typed array per
/// table, each in the order its rows were added. Each document gives its own
/// `DeviceRows` (documents convert independently, so they can be decoded in parallel);
/// the builder appends them in kind and id order, which is key order for every table.
///
/// A row type (`DeviceRow.Pokemon`, ...) has a property per column, named after it
/// (`speciesID` is `species_id`), so a property the converter does not fill is a compile
/// error there. The writer puts the properties in the declared column order by name
/// (`DeviceRowColumns`), and stops at the first row that lacks a declared column or has
/// a property that is none; `DeviceRowsTests` checks every table's rows on the sample,
/// and holds each table's row type to being localized exactly when the table has a
/// language column.
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

    /// Hands `visitor` each table's declaration and the key path of its rows, in the order <doc:PokedexReader/DeviceDatabase> lists them.
    /// The one list of the tables: writing, joining and the language filter go through it.
    static func visitTables<Visitor: DeviceTableVisitor>(_ visitor: inout Visitor) throws(Visitor.Failure) {
        try visitor.visit(.pokemon, \.pokemon)
        try visitor.visit(.pokemonType, \.pokemonTypes)
        try visitor.visit(.pokemonStat, \.pokemonStats)
        try visitor.visit(.pokemonAbility, \.pokemonAbilities)
        try visitor.visit(.pokemonMove, \.pokemonMoves)
        try visitor.visit(.pokemonSprite, \.pokemonSprites)
        try visitor.visit(.species, \.species)
        try visitor.visit(.speciesName, \.speciesNames)
        try visitor.visit(.speciesFlavorText, \.speciesFlavorTexts)
        try visitor.visit(.pokedex, \.pokedexes)
        try visitor.visit(.pokedexEntry, \.pokedexEntries)
        try visitor.visit(.pokedexDescription, \.pokedexDescriptions)
        try visitor.visit(.evolutionChain, \.evolutionChains)
        try visitor.visit(.evolutionStep, \.evolutionSteps)
        try visitor.visit(.type, \.types)
        try visitor.visit(.typeName, \.typeNames)
        try visitor.visit(.typeEfficacy, \.typeEfficacies)
        try visitor.visit(.ability, \.abilities)
        try visitor.visit(.abilityName, \.abilityNames)
        try visitor.visit(.abilityText, \.abilityTexts)
        try visitor.visit(.move, \.moves)
        try visitor.visit(.moveName, \.moveNames)
        try visitor.visit(.moveText, \.moveTexts)
        try visitor.visit(.stat, \.stats)
        try visitor.visit(.statName, \.statNames)
        try visitor.visit(.version, \.versions)
        try visitor.visit(.versionName, \.versionNames)
        try visitor.visit(.language, \.languages)
        try visitor.visit(.languageName, \.languageNames)
    }

    /// Appends every table's rows of `other` after this one's.
    mutating func append(contentsOf other: DeviceRows) {
        var appender = Appender(rows: self, other: other)
        self = DeviceRows() // the appender holds the only reference: its arrays grow in place
        Self.visitTables(&appender)
        self = appender.rows
    }

    /// Removes the rows of the localized tables whose language `keeps` rejects.
    /// (When it throws afterwards, the caller's rows are already filtered.)
    /// - Returns: every language code those rows had before, as the API spells them.
    mutating func keepLanguages(where keeps: (String) -> Bool) -> Set<String> {
        withoutActuallyEscaping(keeps) { keeps in
            var filter = LanguageFilter(rows: self, keeps: keeps)
            self = DeviceRows()
            Self.visitTables(&filter)
            self = filter.rows
            return filter.present
        }
    }
}

/// The namespace of the row types, one per device table (but the six reference name
/// tables share `Name`, and ability and move texts `Text`).
enum DeviceRow {}

/// A row of a device table: its stored properties are its table's columns, by name
/// (`DeviceRowColumns` reads them through `Encodable`; the view tables' rows go through
/// their builder tables instead).
protocol DeviceTableRow: Sendable, Encodable {
    /// The language code of a row of a table with a language column (`language`, or
    /// `language_name`'s `in_language`), else nil: what a profile's languages filter.
    var languageCode: String? { get }
}

extension DeviceTableRow {
    var languageCode: String? { nil }
}

/// A row of a table with a language column, which a profile's languages filter.
protocol LocalizedDeviceRow: DeviceTableRow {
    /// The language code, as the API spells it.
    var language: String { get }
}

extension LocalizedDeviceRow {
    var languageCode: String? { language }
}

/// Takes each table in turn, with the key path of its rows in `DeviceRows`: the writer,
/// the joining of documents' rows, the language filter.
protocol DeviceTableVisitor {
    /// `Never` for a visitor that cannot fail.
    associatedtype Failure: Error
    mutating func visit<Row: DeviceTableRow>(_ table: DeviceSchema.Table, _ rows: WritableKeyPath<DeviceRows, [Row]>) throws(Failure)
}

extension DeviceRows {
    private struct Appender: DeviceTableVisitor {
        var rows: DeviceRows
        let other: DeviceRows
        mutating func visit<Row: DeviceTableRow>(_ table: DeviceSchema.Table, _ path: WritableKeyPath<DeviceRows, [Row]>) {
            rows[keyPath: path].append(contentsOf: other[keyPath: path])
        }
    }

    private struct LanguageFilter: DeviceTableVisitor {
        var rows: DeviceRows
        let keeps: (String) -> Bool
        var present = Set<String>()
        mutating func visit<Row: DeviceTableRow>(_ table: DeviceSchema.Table, _ path: WritableKeyPath<DeviceRows, [Row]>) {
            guard rows[keyPath: path].first?.languageCode != nil else { return }
            for row in rows[keyPath: path] { if let code = row.languageCode { present.insert(code) } }
            rows[keyPath: path].removeAll { row in row.languageCode.map { !keeps($0) } ?? false }
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
