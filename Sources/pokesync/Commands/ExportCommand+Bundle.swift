import Foundation
import PokeSyncCore
import PokedexReader

extension ExportCommand {
    /// `pokesync export [--format bundle] [--version N] [--sprites SET] [--languages LIST] [--out DIR] [--replace-damaged]`.
    func exportBundles() throws -> ExitStatus {
        let layout = MirrorLayout.resolve(option: arguments[.mirror])
        let config = try MirrorConfig.load(layout)
        // The command line, else mirror.json's bundles.sprites / bundles.languages (the nightly job's).
        let languages = try arguments[Self.languages].map(BundleProfile.parseLanguages) ?? config.bundles.languages
        let profile = try BundleProfile.canonical(sprites: arguments[Self.sprites] ?? config.bundles.sprites, languages: languages)
        let folder = BundlesFolder(root: arguments[Self.out].map { URL(fileURLWithPath: $0) } ?? layout.bundlesFolder)
        // The lock: prune drops versions and their bundles, and two exports must not
        // race on one index.
        let lock = try MirrorLock(layout: layout)
        defer { withExtendedLifetime(lock) {} }
        let store = try Store(layout: layout, create: false)
        let result: BundleExporter.Result
        do {
            result = try store.snapshot {
                try BundleExporter(store: store, folder: folder)
                    .export(version: try arguments.integer(Self.version), profile: profile,
                            graceHours: config.bundles.graceHours, replaceDamaged: arguments.has(Self.replaceDamaged))
            }
        } catch let none as ExportError where none.code == .noBundleForKinds {
            // The mirror's kinds, chosen on purpose (--allow-shrink): said, not a failed night.
            print(none.description)
            return .success
        }
        print(Self.describe(result, folder: folder, profile: profile))
        // Written, but not all of it: the nightly job says so and exits 2.
        return result.isIncomplete ? .filesCarried : .success
    }

    static func describe(_ result: BundleExporter.Result, folder: BundlesFolder, profile: BundleProfile) -> String {
        func size(_ bytes: Int) -> String { bytes >= 1_000_000 ? String(format: "%.1f MB", Double(bytes) / 1e6) : "\(max(1, bytes / 1000)) kB" }
        var lines = result.movedAside
        lines.append("\(result.full.isNew ? "wrote" : "kept") \(folder.url(result.full.name).path) (\(size(result.full.size)))")
        for delta in result.deltas {
            lines.append("\(delta.isNew ? "wrote" : "kept") \(delta.name) (\(size(delta.size)))")
        }
        if !result.skippedDeltas.isEmpty {
            lines.append("no delta from version(s) \(result.skippedDeltas.map(String.init).joined(separator: ", ")): not smaller than the full bundle")
        }
        if result.indexWritten {
            lines.append("index.json names version \(result.version) and \(result.deltas.count) delta(s)")
        } else {
            lines.append("index.json left as it is: version \(result.version) is not the newest")
        }
        if !result.removed.isEmpty { lines.append("removed after the grace period: " + result.removed.joined(separator: ", ")) }
        // Last, where the nightly log's tail and cron's mail show them: a warning from the
        // export that wrote the bundle, a note from those that keep it (the same gap, said).
        let prefix = result.full.isNew ? "warning: " : "note: "
        for failed in result.failedDeltas {
            let reason = (failed.failure as? RequestError).map(CommandLineWords.describe) ?? failed.failure.description
            lines.append(prefix + "no delta from version \(failed.base): it cannot be built (\(reason)); "
                         + "devices at version \(failed.base) take the full bundle")
        }
        if let example = result.missingSprites.first {
            lines.append(prefix + "version \(result.version)'s bundle lacks \(result.missingSprites.count) sprite(s) --sprites "
                         + "\(profile.sprites) asks for, which their host did not deliver (e.g. \(example)); its manifest's "
                         + "missing_sprites names them, and a later version brings them")
        }
        return lines.joined(separator: "\n")
    }
}
