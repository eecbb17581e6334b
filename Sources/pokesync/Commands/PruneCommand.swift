import Foundation
import PokeSyncCore

/// `pokesync prune --keep N`.
struct PruneCommand {
    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, options: ["mirror", "keep"], flags: [])
        try arguments.expectPositionals(0...0, usage: "pokesync prune --keep N [--mirror DIR]")
    }

    func execute() throws -> ExitStatus {
        let layout = MirrorLayout.resolve(option: arguments.options["mirror"])
        // Without --keep, mirror.json's retention.keep (what the nightly job uses).
        let keep = try arguments.integer("keep", minimum: 1) ?? MirrorConfig.load(layout).retention.keep
        let lock = try MirrorLock(layout: layout)
        defer { withExtendedLifetime(lock) {} }
        let store = try Store(layout: layout, create: false)
        let result = try store.prune(keep: keep)
        // Deltas from the dropped versions leave the index; their files go after the grace period.
        let retained = Set(try store.versions().map(\.number))
        let removedBundles = try BundlesFolder(root: layout.bundlesFolder)
            .forget(versionsNotIn: retained, graceHours: try MirrorConfig.load(layout).bundles.graceHours)
        if !removedBundles.isEmpty { print("removed bundles past their grace period: " + removedBundles.joined(separator: ", ")) }
        if result.removedVersions.isEmpty {
            print("nothing to prune: \(keep) or fewer versions retained")
        } else {
            print("pruned versions \(result.removedVersions.map(String.init).joined(separator: ", ")); "
                  + "freed \(result.freedDocuments) documents and \(result.freedSprites) sprite files; "
                  + String(format: "store %.1f MB → %.1f MB", Double(result.bytesBefore) / 1e6, Double(result.bytesAfter) / 1e6))
        }
        if let reason = result.compactingError {
            standardError("pokesync: warning: pruned, but the store could not be compacted: \(reason)\n")
        }
        return .success
    }
}
