import Foundation

/// What an async ``Pokedex/read(_:)`` hands its closure: the `Pokedex`'s queries, on the
/// one connection of that read, each checking first whether the task was cancelled.
///
/// A type of its own, not a `Pokedex`, as GRDB's `read { db in }` hands a `Database`: a
/// closure that reads through the `Pokedex` it captured instead would not compile where
/// a `PokedexConnection` is expected, and could not lose the read's cancellation silently.
/// Use it only inside the closure (it is not `Sendable`); after the closure returns, its
/// queries take a connection from the pool like the `Pokedex`'s.
public final class PokedexConnection {
    /// The `Pokedex` bound to the read's connection and cancellation.
    let bound: Pokedex

    init(bound: Pokedex) { self.bound = bound }

    /// The languages the `Pokedex` was opened with.
    public var languages: [String] { bound.languages }

    /// ``Pokedex/pokemon(id:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func pokemon(id: Int, languages: [String]? = nil) throws -> PokemonDetail? {
        try bound.pokemon(id: id, languages: languages)
    }
    /// ``Pokedex/pokemon(named:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func pokemon(named name: String, languages: [String]? = nil) throws -> PokemonDetail? {
        try bound.pokemon(named: name, languages: languages)
    }
    /// ``Pokedex/pokemon(nameOrID:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func pokemon(nameOrID: String, languages: [String]? = nil) throws -> PokemonDetail? {
        try bound.pokemon(nameOrID: nameOrID, languages: languages)
    }
    /// ``Pokedex/evolutionChain(id:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func evolutionChain(id: Int, languages: [String]? = nil) throws -> EvolutionNode? {
        try bound.evolutionChain(id: id, languages: languages)
    }
    /// ``Pokedex/pokemonCount()`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func pokemonCount() throws -> Int { try bound.pokemonCount() }
    /// ``Pokedex/list(offset:limit:sortedBy:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func list(offset: Int = 0, limit: Int = 20, sortedBy order: PokemonSortOrder = .id,
                     languages: [String]? = nil) throws -> [PokemonSummary] {
        try bound.list(offset: offset, limit: limit, sortedBy: order, languages: languages)
    }
    /// ``Pokedex/summary(id:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func summary(id: Int, languages: [String]? = nil) throws -> PokemonSummary? {
        try bound.summary(id: id, languages: languages)
    }
    /// ``Pokedex/listExtras(for:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func listExtras(for ids: [Int], languages: [String]? = nil) throws -> [Int: PokemonListExtras] {
        try bound.listExtras(for: ids, languages: languages)
    }
    /// ``Pokedex/search(_:limit:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func search(_ query: String, limit: Int? = nil, languages: [String]? = nil) throws -> [SearchHit] {
        try bound.search(query, limit: limit, languages: languages)
    }
    /// ``Pokedex/types(languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func types(languages: [String]? = nil) throws -> [PokemonType] { try bound.types(languages: languages) }
    /// ``Pokedex/damageFactor(attacking:defending:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func damageFactor(attacking: String, defending: [String]) throws -> Double {
        try bound.damageFactor(attacking: attacking, defending: defending)
    }
    /// ``Pokedex/typeDefense(pokemonID:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func typeDefense(pokemonID id: Int, languages: [String]? = nil) throws -> TypeDefense? {
        try bound.typeDefense(pokemonID: id, languages: languages)
    }
    /// ``Pokedex/pokemon(ofType:offset:limit:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func pokemon(ofType type: String, offset: Int = 0, limit: Int = 20,
                        languages: [String]? = nil) throws -> [PokemonSummary] {
        try bound.pokemon(ofType: type, offset: offset, limit: limit, languages: languages)
    }
    /// ``Pokedex/pokemonCount(ofType:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func pokemonCount(ofType type: String) throws -> Int { try bound.pokemonCount(ofType: type) }
    /// ``Pokedex/pokedexes(languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func pokedexes(languages: [String]? = nil) throws -> [PokedexInfo] { try bound.pokedexes(languages: languages) }
    /// ``Pokedex/entries(ofPokedex:offset:limit:languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func entries(ofPokedex pokedexID: Int, offset: Int = 0, limit: Int = 20,
                        languages: [String]? = nil) throws -> [PokedexEntry] {
        try bound.entries(ofPokedex: pokedexID, offset: offset, limit: limit, languages: languages)
    }
    /// ``Pokedex/entryCount(ofPokedex:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func entryCount(ofPokedex pokedexID: Int) throws -> Int { try bound.entryCount(ofPokedex: pokedexID) }
    /// ``Pokedex/bundleLanguages(languages:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func bundleLanguages(languages: [String]? = nil) throws -> [BundleLanguage] {
        try bound.bundleLanguages(languages: languages)
    }
    /// ``Pokedex/metaValue(_:)`` on this read's connection.
    /// - Throws: what the `Pokedex` method throws; `CancellationError` once the task is cancelled.
    public func metaValue(_ key: String) throws -> String? { try bound.metaValue(key) }
    /// ``Pokedex/fileURL(for:)``: a sprite's file in the version the `Pokedex` opened.
    public func fileURL(for sprite: PokemonSprite) -> URL? { bound.fileURL(for: sprite) }
    /// ``Pokedex/fileURL(forSpritePath:)``: a sprite path's file in the version the `Pokedex` opened.
    public func fileURL(forSpritePath path: String) -> URL? { bound.fileURL(forSpritePath: path) }
}
