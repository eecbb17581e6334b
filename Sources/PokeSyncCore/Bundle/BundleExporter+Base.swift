import Foundation
import PokedexReader

extension BundleExporter {
    /// The database a device at version `rebuilt.info.version` holds, to make a delta from.
    ///
    /// Usually the version built again from the store (`rebuilt`) is that database. It is
    /// not when the builder has changed since that version's full bundle was published
    /// (flavor texts came to be trimmed of U+3000 as well): a delta from the rebuilt base
    /// would leave the changed rows out, and every device applying it would fail its
    /// `content_digest` check and fall back to the full bundle. So when the folder still
    /// holds that full bundle, of this lineage and profile, and its digest is not the
    /// rebuilt one, its own `pokedex.sqlite` (checked as `verify` checks it) is the base,
    /// and the delta carries the rows that changed, as an ordinary update.
    /// - Returns: `rebuilt`, or the published database with `rebuilt`'s info (sprites are
    ///   the store's objects either way); anything unreadable about the published one
    ///   leaves `rebuilt`.
    func deviceBase(_ rebuilt: BuiltDatabase, lineage: String, profile: BundleProfile, scratch: URL) -> BuiltDatabase {
        let published = folder.url(BundlesFolder.fullName(version: rebuilt.info.version))
        guard FileManager.default.fileExists(atPath: published.path),
              let manifest = try? BundleArchive.readManifest(published), !manifest.isDelta,
              manifest.version == rebuilt.info.version, manifest.lineage == lineage, manifest.profile == profile,
              manifest.contentDigest != rebuilt.info.contentDigest.hex else { return rebuilt }
        var verifier = BundleVerifier(scratch: scratch)
        guard let extract = try? verifier.verifyArchive(published, expected: nil, index: nil) else { return rebuilt }
        return BuiltDatabase(file: extract.folder.appendingPathComponent(BundleManifest.databaseName), info: rebuilt.info)
    }
}
