import Foundation
import PokeSyncCore

/// `pokesync prune --keep N`.
struct PruneCommand: MirrorCommand {
    /// Without it, mirror.json's retention.keep (what the nightly job uses).
    static let keep = OptionSpec.option("keep", "N", .atLeast(1), help: "")
    /// `pokesync help prune`.
    static let spec = CommandSpec(name: "prune", positionals: "", positionalCount: 0...0,
                                  usage: [.optional(keep), .optional(.mirror)], sections: [.text("""
        Drops all but the newest N versions (default: retention.keep in mirror.json) and frees documents and sprite bytes no retained
        version needs. Never touches the latest version or a run in progress.
        """)])

    let arguments: Arguments

    func execute() throws -> ExitStatus {
        // Without --keep, mirror.json's retention.keep (what the nightly job uses).
        let report = try MirrorPrune.run(layout: layout, keep: try arguments.integer(Self.keep))
        let (result, keep) = (report.store, report.keep)
        if !report.removedBundles.isEmpty { print("removed bundles past their grace period: " + report.removedBundles.joined(separator: ", ")) }
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
