import Foundation

/// `prune` as one operation: drops the store's older versions, the diff files that end
/// at them, and the deltas from them in the bundles index (their files go after the
/// grace period, since CDNs serve cached indexes).
package enum MirrorPrune {
    /// What a prune did.
    package struct Report: Sendable {
        /// What the store dropped and freed.
        package var store: PruneResult
        /// Bundle files removed now because their grace period had passed.
        package var removedBundles: [String]
        /// How many versions were to be kept.
        package var keep: Int
    }

    /// Prunes `layout`'s mirror under its lock, keeping the newest `keep` versions
    /// (`retention.keep` of `mirror.json` when nil).
    /// - Throws: `MirrorError.locked` when another pokesync holds the folder, `RequestError` when
    ///   `keep` is below 1, config, store and file errors.
    package static func run(layout: MirrorLayout, keep: Int?) throws -> Report {
        // Read once; with --keep it is read after the prune, as before (a bad mirror.json
        // then does not stop the prune).
        let config = keep == nil ? try MirrorConfig.load(layout) : nil
        let keep = keep ?? config!.retention.keep
        let lock = try MirrorLock(layout: layout)
        defer { withExtendedLifetime(lock) {} }
        let store = try Store(layout: layout, create: false)
        let result = try store.prune(keep: keep)
        let retained = Set(try store.versions().map(\.number))
        VersionDiff.removeFiles(endingOutside: retained, layout: layout)
        let removedBundles = try BundlesFolder(root: layout.bundlesFolder)
            .forget(versionsNotIn: retained, graceHours: try (config ?? MirrorConfig.load(layout)).bundles.graceHours)
        return Report(store: result, removedBundles: removedBundles, keep: keep)
    }
}
