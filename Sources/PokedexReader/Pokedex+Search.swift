extension Pokedex {
    /// Search as you type, by the rule of <doc:PokedexReader/Reader#Search>.
    ///
    /// `query` is split on whitespace into terms, each folded (accents
    /// and case ignored, `ß` as `ss`, `’` as `'`). A pokemon matches when every term is
    /// inside one of its strings: its name (`charizard-mega-x`), its species' name in each
    /// language of the bundle (`Glurak`, `リザードン`), its types (`fire`) and their names in
    /// each language of the bundle (`Feu`, `ほのお`, `불꽃`: so "eau" finds the water types,
    /// and ranks them exact, before Beautifly's substring). A term's rank is
    /// the best of exact (equals a whole string), prefix, substring; the pokemon's is the
    /// worst of its terms'. Results come by rank, then id. One letter is a query too; an
    /// empty or blank query gives no results.
    ///
    /// The first search loads every pokemon's strings and list rows into memory (about
    /// 0.7 MB for the full data); later ones only scan them.
    /// Each hit's ``PokemonSummary/localizedName`` is in the first of `languages` the data
    /// has, else English (nil: the `Pokedex`'s languages, which the loaded strings hold;
    /// others cost one more query for the hits).
    /// - Parameter limit: at most this many hits (the best), or all when nil.
    /// - Throws: ``PokedexError`` when loading the strings fails or a value cannot be read.
    public func search(_ query: String, limit: Int? = nil, languages: [String]? = nil) throws -> [SearchHit] {
        let terms = SearchFolding.terms(query)
        guard !terms.isEmpty else { return [] }
        // The index is immutable once built: match outside the lock, so searches run in parallel.
        var hits = try loadedSearchIndex().search(terms: terms)
        if let limit { hits = Array(hits.prefix(max(limit, 0))) }
        guard let languages, languages != self.languages, !hits.isEmpty else { return hits }
        let summaries = try read { database in
            try Self.summaries(ids: hits.map(\.pokemon.id), languages: languages, in: database)
        }
        return hits.map { SearchHit(pokemon: summaries[$0.pokemon.id] ?? $0.pokemon, rank: $0.rank) }
    }

    /// Loads the search strings now (at launch, off the main thread, say) so that the first
    /// keystroke does not pay for it.
    /// - Throws: ``PokedexError`` when loading the strings fails or a value cannot be read.
    public func prepareSearch() throws {
        _ = try loadedSearchIndex()
    }
}
