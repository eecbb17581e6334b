import PokeArchive
import PokeSyncCore

/// The linked files one version holds, by tree: what `--sprite-base` may point at. A
/// link to any other file keeps upstream's URL, so no served link is a local 404.
struct HeldLinks: Sendable {
    /// Paths below `sprites/` and below `cries/`.
    let sprites: Set<String>
    let cries: Set<String>
    /// A digest of both sets: a document renders differently under another set, so its
    /// cached body and ETag are told apart by it.
    let tag: [UInt8]

    static let none = HeldLinks(sprites: [], cries: [])

    init(sprites: Set<String>, cries: Set<String>) {
        self.sprites = sprites
        self.cries = cries
        var digest = SHA256()
        for (name, paths) in [("sprites", sprites), ("cries", cries)] {
            for path in paths.sorted() { digest.update(Array("\(name)/\(path)\n".utf8)) }
        }
        tag = digest.finalize().bytes
    }

    /// The files version `version` of `store` holds (inside the caller's snapshot).
    /// - Throws: `StoreError` for a damaged store.
    static func load(store: Store, version: Int) throws -> HeldLinks {
        HeldLinks(sprites: Set(try store.versionFiles(.sprites, version).map(\.path)),
                  cries: Set(try store.versionFiles(.cries, version).map(\.path)))
    }

    func holds(_ tree: LinkedTree, _ path: String) -> Bool {
        tree == .sprites ? sprites.contains(path) : cries.contains(path)
    }
}
