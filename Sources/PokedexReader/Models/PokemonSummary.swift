/// One row of the list: what a list or grid cell shows.
public struct PokemonSummary: Sendable, Hashable, Codable, Identifiable {
    /// The pokemon's id (1-1025, then 10001 upward for forms).
    public let id: Int
    /// The API's name (`charizard-mega-x`).
    public let name: String
    /// The species' name in the first of the languages the data has, else English
    /// (`Dracaufeu`; forms share their species' name); nil when the bundle names the
    /// species in none of them.
    public let localizedName: LocalizedText?
    /// Type slugs in slot order (`["fire", "flying"]`).
    public let types: [String]
    /// The first bundled of `front_default`, `other/official-artwork/front_default`,
    /// `other/home/front_default`, as a path relative to the database's folder
    /// (``Pokedex/fileURL(forSpritePath:)`` makes it a file URL); nil when none is bundled.
    public let thumbnail: String?

    /// Makes a value from its parts (for previews and tests; the reader makes its own).
    public init(id: Int, name: String, localizedName: LocalizedText? = nil, types: [String], thumbnail: String?) {
        self.id = id
        self.name = name
        self.localizedName = localizedName
        self.types = types
        self.thumbnail = thumbnail
    }
}

extension PokemonSummary {
    /// The `pokemon` columns ``init(row:localizedName:types:thumbnail:)`` reads.
    static let columns = ["id", "name"]

    /// A list row from its `pokemon` row (``columns``), its species' name, types and thumbnail.
    init(row: ReadRow, localizedName: LocalizedText?, types: [String], thumbnail: String?) throws {
        self.init(id: try row.int("id"), name: try row.text("name"), localizedName: localizedName, types: types,
                  thumbnail: thumbnail)
    }
}

/// How ``Pokedex/list(offset:limit:sortedBy:languages:)`` orders the pokemon.
public enum PokemonSortOrder: String, Sendable, CaseIterable, Codable {
    /// By id (national dex order, forms after).
    case id
    /// By name, then id.
    case name
    /// By first type (slot order), then id, as a "sort by type" screen groups them.
    case type
}

/// The sprite keys a thumbnail is taken from, best first.
enum Thumbnail {
    static let keys = ["front_default", "other/official-artwork/front_default", "other/home/front_default"]

    /// An SQL expression giving the thumbnail path of the pokemon `p.id`: one primary-key
    /// lookup per key, in SQLite, so a page or the whole list costs one statement.
    /// (The keys are constants without quotes, safe to inline.)
    static let sqlExpression: String = "COALESCE(" + keys.map {
        "(SELECT path FROM pokemon_sprite WHERE pokemon_id = p.id AND key = '\($0)' AND path IS NOT NULL)"
    }.joined(separator: ", ") + ")"
}
