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
    /// The localized names and thumbnail URLs of a page of pokemon (the ids of a
    /// ``list(offset:limit:sortedBy:)`` page or of search hits), in two queries for the
    /// whole page. Ids with no pokemon are left out.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func listExtras(for ids: [Int], languages: [String] = PreferredLanguages.system) throws -> [Int: PokemonListExtras] {
        guard !ids.isEmpty else { return [:] }
        let marks = ids.map { _ in "?" }.joined(separator: ", ")
        let keys = ids.map { SQLValue.integer(Int64($0)) }
        return try read { database in
            let names = try database.rows("""
                SELECT p.id, n.language, n.name FROM pokemon p JOIN species_name n ON n.species_id = p.species_id
                WHERE p.id IN (\(marks)) AND n.name IS NOT NULL
                """, keys) { ($0.int(0), LocalizedText(text: $0.text(2), language: $0.text(1))) }
            let byPokemon = Dictionary(grouping: names, by: \.0).mapValues { $0.map(\.1) }
            let order = Thumbnail.keys
            let sprites = try database.rows("""
                SELECT pokemon_id, key, url, path FROM pokemon_sprite WHERE pokemon_id IN (\(marks))
                AND key IN (\(order.map { _ in "?" }.joined(separator: ", ")))
                """, keys + order.map { .text($0) }) { ($0.int(0), $0.text(1), $0.text(2), $0.optionalText(3)) }
            let spritesByPokemon = Dictionary(grouping: sprites, by: \.0)
            let present = try Set(database.rows("SELECT id FROM pokemon WHERE id IN (\(marks))", keys) { $0.int(0) })
            var extras: [Int: PokemonListExtras] = [:]
            for id in ids where present.contains(id) {
                let candidates = (spritesByPokemon[id] ?? []).sorted {
                    (order.firstIndex(of: $0.1) ?? order.count) < (order.firstIndex(of: $1.1) ?? order.count)
                }
                let url = (candidates.first { $0.3 != nil } ?? candidates.first)?.2
                extras[id] = PokemonListExtras(id: id, localizedName: Self.choose(byPokemon[id] ?? [], languages),
                                               thumbnailURL: url.flatMap(UpstreamURL.make))
            }
            return extras
        }
    }
}
