import Foundation
import PokeArchive

/// The sprites a bundle carries: the version's sprites whose key (JSON path under
/// `sprites`) the profile's sprite set selects, with their paths in the bundle.
public struct SpriteSelection: Sendable {
    /// One sprite file of the bundle.
    public struct File: Sendable, Hashable {
        /// `sprites/pokemon/25.png`: the upstream path below the sprites repository.
        public var bundlePath: String
        public var url: String
        public var hash: SHA256Digest
    }

    /// Sorted by `bundlePath`.
    public var files: [File]
    /// Upstream URL to bundle path, for `pokemon_sprite.path` (NULL when not bundled).
    public var pathsByURL: [String: String]

    /// Resolves `set` against what version `version` holds.
    /// - Throws: `UsageError` naming the sprite keys the set asks for and the version does
    ///   not hold (it was mirrored with a smaller `--sprites`): a usage error, since a
    ///   smaller set or a mirror with those sprites fixes it.
    public static func resolve(store: Store, version: Int, set: SpriteSet) throws -> SpriteSelection {
        var held: [String: (path: String, hash: SHA256Digest)] = [:]
        for sprite in try store.versionSprites(version) { held[sprite.url] = (sprite.path, sprite.hash) }
        // Sprites upstream lacked (404) or that pokesync refused are not the version's fault.
        let skipped = Set(try store.spriteReports(version: version).map(\.url))

        var pathsByURL: [String: String] = [:]
        var files: [String: File] = [:]
        var lacking: [String: Int] = [:]
        for document in try store.documents(version: version) where document.kind == .pokemon {
            for reference in try store.spriteReferences(documentHash: document.hash) where set.selects(reference.key) {
                if let sprite = held[reference.url] {
                    let bundlePath = "sprites/" + sprite.path
                    pathsByURL[reference.url] = bundlePath
                    files[bundlePath] = File(bundlePath: bundlePath, url: reference.url, hash: sprite.hash)
                } else if !skipped.contains(reference.url) {
                    lacking[reference.key, default: 0] += 1
                }
            }
        }
        if !lacking.isEmpty {
            let keys = lacking.keys.sorted().prefix(5).map { "\($0) (\(lacking[$0]!))" }.joined(separator: ", ")
            let more = lacking.count > 5 ? " and \(lacking.count - 5) more keys" : ""
            throw UsageError("version \(version) does not hold the sprites --sprites \(set) asks for: \(keys)\(more); "
                             + "export a smaller set or mirror them with `pokesync sync --sprites \(set)`")
        }
        return SpriteSelection(files: files.values.sorted { $0.bundlePath < $1.bundlePath }, pathsByURL: pathsByURL)
    }
}
