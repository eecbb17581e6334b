import Foundation
import PokeArchive

/// What ``DeviceDatabaseBuilder`` built: the facts a manifest and a report need.
package struct DeviceDatabaseInfo: Sendable, Equatable {
    /// The version the database holds.
    package var version: Int
    /// `content_digest`, as written to `meta`.
    package var contentDigest: SHA256Digest
    /// The file's size in bytes.
    package var size: Int
    /// Rows per table of ``DeviceSchema/tables`` (and `pokemon_search`).
    package var rowCounts: [String: Int]
    /// The language codes the database holds, as the API spells them, sorted.
    package var languages: [String]
    /// The sprites the bundle must carry (every non-NULL `pokemon_sprite.path`), by path.
    package var bundledSprites: [BundledSprite]
    /// Sprites (key and URL) the profile selects that the version does not hold (refused
    /// or missing upstream, their host failed, or not crawled with this sprite set): their
    /// rows have a NULL path.
    package var unheldSprites: [SpriteReference]
    /// Dangling references kept under ``ReferenceCheck/Policy/keep``; empty otherwise.
    package var danglingReferences: [String]
}

/// A sprite file of a bundle: its path in the bundle and the object holding its bytes.
package struct BundledSprite: Sendable, Hashable, Comparable {
    /// `sprites/pokemon/25.png`.
    package var path: String
    /// The content hash: the object in the mirror's sprite objects.
    package var hash: SHA256Digest

    package static func < (lhs: BundledSprite, rhs: BundledSprite) -> Bool { lhs.path < rhs.path }
}
