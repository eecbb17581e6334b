import Foundation

/// One sprite of a pokemon, by its key in the API's `sprites` object.
public struct PokemonSprite: Sendable, Hashable, Codable {
    /// The JSON path under `sprites` (`front_default`, `other/official-artwork/front_default`).
    public let key: String
    /// The upstream URL, always present (a client online may fetch what is not bundled).
    public let url: URL
    /// The file in the bundle relative to the database's folder (`sprites/pokemon/25.png`),
    /// nil when this sprite is not bundled. ``Pokedex/fileURL(for:)`` gives its file URL.
    public let path: String?

    /// Makes a value from its parts (for previews and tests; the reader makes its own).
    public init(key: String, url: URL, path: String?) {
        self.key = key
        self.url = url
        self.path = path
    }

    /// Whether the sprite's file is on the device.
    public var isBundled: Bool { path != nil }
}

/// A sprite and its female variant, where the pokemon looks different as a female.
public struct SpritePair: Sendable, Hashable, Codable {
    /// Makes a value from its parts (for previews and tests; the reader makes its own).
    public init(`default`: PokemonSprite, female: PokemonSprite?) {
        self.default = `default`
        self.female = female
    }


    /// The default (male or genderless) sprite.
    public let `default`: PokemonSprite
    /// The female sprite, nil when the female looks the same.
    public let female: PokemonSprite?
}

extension PokemonSprite {
    /// The `pokemon_sprite` columns ``init(row:url:)`` reads (`url` as text, for ``UpstreamURL``).
    static let columns = ["key", "url", "path"]

    /// A sprite from its `pokemon_sprite` row (``columns``) and its URL, already parsed.
    init(row: ReadRow, url: URL) throws {
        self.init(key: try row.text("key"), url: url, path: try row.optionalText("path"))
    }
}
