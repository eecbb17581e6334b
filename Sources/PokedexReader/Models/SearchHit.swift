/// One search result: the pokemon and how well it matched.
public struct SearchHit: Sendable, Hashable, Codable {
    /// Makes a value from its parts (for previews and tests; the reader makes its own).
    public init(pokemon: PokemonSummary, rank: SearchRank) {
        self.pokemon = pokemon
        self.rank = rank
    }


    /// The pokemon, as the list shows it.
    public let pokemon: PokemonSummary
    /// The worst of its terms' best matches.
    public let rank: SearchRank
}

/// How a search term matched one of a pokemon's strings; results come best first.
public enum SearchRank: Int, Sendable, Hashable, Codable, Comparable {
    /// The term equals a whole string (`fire`).
    case exact = 0
    /// The term starts a string (`char` in `charizard`).
    case prefix = 1
    /// The term is inside a string (`zard`).
    case substring = 2

    /// Exact before prefix before substring.
    public static func < (lhs: SearchRank, rhs: SearchRank) -> Bool { lhs.rawValue < rhs.rawValue }
}
