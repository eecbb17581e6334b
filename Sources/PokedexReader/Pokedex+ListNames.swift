import Foundation
import PokeSQLite

/// What a list row shows beyond ``PokemonSummary``, for a page at a time (<doc:PokedexReader/Reader#The-list>: the
/// list with the species' localized name and the thumbnail's upstream URL).
public struct PokemonListExtras: Sendable, Hashable, Codable {
    /// The pokemon's id.
    public let id: Int
    /// The species' name in the first preferred language the data has, else English
    /// (`Dracaufeu`); forms share their species' name.
    public let localizedName: LocalizedText?
    /// The upstream URL of the thumbnail: of the bundled one when there is one, else of
    /// the first of `front_default`, `other/official-artwork/front_default`,
    /// `other/home/front_default` the pokemon has; nil when it has none of them.
    public let thumbnailURL: URL?

    /// Makes a value from its parts (for previews and tests; the reader makes its own).
    public init(id: Int, localizedName: LocalizedText?, thumbnailURL: URL?) {
        self.id = id
        self.localizedName = localizedName
        self.thumbnailURL = thumbnailURL
    }
}

extension Pokedex {
    static let extrasNames = ReadQuery(.speciesName, as: "n", ["language", "name"], also: [.column(.pokemon, alias: "p", "id", as: "pokemon_id")], """
        FROM pokemon p JOIN species_name n ON n.species_id = p.species_id WHERE p.id IN (?*) AND n.name IS NOT NULL
        """)
    static let extrasSprites = ReadQuery(.pokemonSprite, ["key", "url", "path"], "WHERE pokemon_id IN (?*) AND key IN (?*)")
    static let presentIDs = ReadQuery(.pokemon, ["id"], "WHERE id IN (?*)")

    /// The localized names and thumbnail URLs of a page of pokemon (the ids of a
    /// ``list(offset:limit:sortedBy:languages:)`` page or of search hits), in three queries
    /// for the whole page. Ids with no pokemon are left out. (``PokemonSummary`` carries
    /// the localized name already; this adds the thumbnail's upstream URL.)
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read.
    public func listExtras(for ids: [Int], languages: [String]? = nil) throws -> [Int: PokemonListExtras] {
        guard !ids.isEmpty else { return [:] }
        let languages = languages ?? self.languages
        let keys = ids.map { SQLValue.integer(Int64($0)) }
        return try read { database in
            var names: [Int: [LocalizedText]] = [:]
            _ = try database.records(Self.extrasNames, keys, lists: [keys.count]) { row in
                names[try row.int("pokemon_id"), default: []].append(LocalizedText(text: try row.text("name"), language: try row.text("language")))
            }
            let order = Thumbnail.keys
            var sprites: [Int: [(key: String, url: String, path: String?)]] = [:]
            _ = try database.records(Self.extrasSprites, keys + order.map { .text($0) }, lists: [keys.count, order.count]) { row in
                sprites[try row.int("pokemon_id"), default: []].append((try row.text("key"), try row.text("url"), try row.optionalText("path")))
            }
            let present = try Set(database.records(Self.presentIDs, keys, lists: [keys.count]) { try $0.int("id") })
            var extras: [Int: PokemonListExtras] = [:]
            for id in ids where present.contains(id) {
                let candidates = (sprites[id] ?? []).sorted {
                    (order.firstIndex(of: $0.key) ?? order.count) < (order.firstIndex(of: $1.key) ?? order.count)
                }
                let url = (candidates.first { $0.path != nil } ?? candidates.first)?.url
                extras[id] = PokemonListExtras(id: id, localizedName: Self.choose(names[id] ?? [], languages),
                                               thumbnailURL: url.flatMap(UpstreamURL.make))
            }
            return extras
        }
    }
}
