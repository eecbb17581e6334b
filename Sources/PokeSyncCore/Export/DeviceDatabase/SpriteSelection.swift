import Foundation
import PokeArchive

/// Which of a document's sprite URLs get a bundle path: those the profile's sprite set
/// selects (by key) and the version holds (by URL).
struct SpriteSelection: Sendable {
    let set: SpriteSet
    /// The version's sprites: URL → (tree path below `sprites/`, object hash).
    let held: [String: (path: String, hash: SHA256Digest)]

    init(set: SpriteSet, held: [String: (String, SHA256Digest)]) {
        self.set = set
        self.held = held.mapValues { (path: $0.0, hash: $0.1) }
    }

    /// `sprites/pokemon/25.png` for a sprite that goes in the bundle, else nil.
    func path(of sprite: SpriteReference) -> String? {
        guard set.selects(sprite.key), let object = held[sprite.url] else { return nil }
        return "sprites/" + object.path
    }

    /// The files the bundle must carry: each distinct path of `pokemon_sprite`, sorted.
    func bundled(_ rows: DeviceRows) -> [BundledSprite] {
        var files = Set<BundledSprite>()
        for row in rows.pokemonSprites {
            guard row.path != nil, let object = held[row.url] else { continue }
            files.insert(BundledSprite(path: "sprites/" + object.path, hash: object.hash))
        }
        return files.sorted()
    }

    /// Selected sprites the version does not hold, by URL then key, each once.
    func unheld(_ rows: DeviceRows) -> [SpriteReference] {
        var sprites = Set<SpriteReference>()
        for row in rows.pokemonSprites where set.selects(row.key) && held[row.url] == nil {
            sprites.insert(SpriteReference(key: row.key, url: row.url))
        }
        return sprites.sorted { ($0.url, $0.key) < ($1.url, $1.key) }
    }
}
