/// The ten kinds of PokeAPI resource pokesync mirrors, by their API names: the four
/// the apps are built on, then the six small reference kinds whose localized names
/// and facts the device database carries (DESIGN, Sources). The order is the order
/// of lists, progress lines and diff summaries.
package enum ResourceKind: String, CaseIterable, Sendable, Codable, Comparable {
    case pokemon
    case pokemonSpecies = "pokemon-species"
    case pokedex
    case evolutionChain = "evolution-chain"
    case type
    case ability
    case move
    case stat
    case version
    case language

    /// The API name, as in `/api/v2/pokemon-species/25/`.
    package var apiName: String { rawValue }

    /// The key of one document in the frontier, the validators, diffs and messages:
    /// `pokemon-species/25`. The one place it is spelled.
    package func documentKey(id: Int) -> String { "\(rawValue)/\(id)" }

    /// The relative path of one document, as stored and as in PokeAPI/api-data.
    package func documentPath(id: Int) -> String { "/api/v2/\(rawValue)/\(id)/" }

    /// Whether the sprites a document of this kind names are mirrored: a pokemon's are;
    /// a type's icons are not (DESIGN, `--sprites`), nor anything another kind names.
    package var mirrorsSprites: Bool { self == .pokemon }

    package static func < (lhs: ResourceKind, rhs: ResourceKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One entry of a kind's list: what the list says exists.
package struct ListedResource: Sendable, Hashable {
    package var kind: ResourceKind
    package var id: Int
    /// Evolution chains have no name in their list.
    package var name: String?

    package init(kind: ResourceKind, id: Int, name: String?) {
        self.kind = kind
        self.id = id
        self.name = name
    }

    /// The id at the end of a resource URL: `/api/v2/pokemon/25/` and
    /// `https://pokeapi.co/api/v2/pokemon/25` both give 25.
    package static func id(fromURL url: String) -> Int? {
        url.split(separator: "/").last.flatMap { Int($0) }
    }
}
