import Foundation
import PokeArchive

/// What ``DeviceDatabaseBuilder`` built: the facts a manifest and a report need.
public struct DeviceDatabaseInfo: Sendable, Equatable {
    /// The version the database holds.
    public var version: Int
    /// `content_digest`, as written to `meta`.
    public var contentDigest: SHA256Digest
    /// The file's size in bytes.
    public var size: Int
    /// Rows per table of ``DeviceSchema/tables`` (and `pokemon_search`).
    public var rowCounts: [String: Int]
    /// The language codes the database holds, as the API spells them, sorted.
    public var languages: [String]
    /// The sprites the bundle must carry (every non-NULL `pokemon_sprite.path`), by path.
    public var bundledSprites: [BundledSprite]
    /// Sprite URLs the profile selects that the version does not hold (refused or missing
    /// upstream, or not crawled with this sprite set): their rows have a NULL path.
    public var unheldSprites: [String]
    /// Dangling references kept under ``ReferenceCheck/Policy/keep``; empty otherwise.
    public var danglingReferences: [String]
}

/// A sprite file of a bundle: its path in the bundle and the object holding its bytes.
public struct BundledSprite: Sendable, Hashable, Comparable {
    /// `sprites/pokemon/25.png`.
    public var path: String
    /// The content hash: the object in the mirror's sprite objects.
    public var hash: SHA256Digest

    public static func < (lhs: BundledSprite, rhs: BundledSprite) -> Bool { lhs.path < rhs.path }
}
