import Foundation
import PokeArchive
import PokeSyncCore
import PokedexReader

/// What `show` and `search` read (`--bundle PATH`): an installed device folder, a
/// `.tar.gz` full bundle (read through a temporary extract of its manifest and database,
/// removed afterwards; see ``ScratchFolder``), or a bundles folder (its index's full bundle,
/// which must be a file in that folder). The default is the full bundle that the
/// mirror's `bundles/index.json` names.
struct OpenedPokedex {
    let pokedex: Pokedex
    /// The temporary extract to remove, if any, and the bundle it came from.
    private let scratch: URL?
    private let archive: String?

    /// The most a bundle may unpack to when read for `show`: a full `--sprites all` bundle is
    /// a few hundred MB.
    static let limits = TarLimits(maxUnpackedBytes: 8 << 30, maxEntryCount: 500_000, maxCompressedBytes: 8 << 30)

    /// - Throws: `UsageError` (64) for a path that is none of these; `TarError` or
    ///   `PokedexError` (65) for a damaged bundle or database.
    /// `languages`: the localized texts' languages, best first (`--language`, then English).
    init(bundle option: String?, mirror: String?, languages: [String]) throws {
        let path: URL
        if let option {
            path = URL(fileURLWithPath: option)
        } else {
            path = MirrorLayout.resolve(option: mirror).bundlesFolder
            guard FileManager.default.fileExists(atPath: path.appendingPathComponent(BundlesFolder.indexName).path) else {
                throw UsageError("no bundle to read: \(path.path) has no index.json (run `pokesync export`, or pass --bundle PATH)")
            }
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isFolder) else {
            throw UsageError("--bundle \(path.path): no such file or folder")
        }
        if isFolder.boolValue {
            if FileManager.default.fileExists(atPath: path.appendingPathComponent("current").path) {
                self.init(pokedex: try Pokedex(folder: path, languages: languages), scratch: nil)
                return
            }
            let indexFile = path.appendingPathComponent(BundlesFolder.indexName)
            guard let data = FileManager.default.contents(atPath: indexFile.path) else {
                throw UsageError("--bundle \(path.path): neither an installed folder (current/) nor a bundles folder (index.json)")
            }
            // The reader library's loader: its file names are plain names inside the folder.
            let index = try BundleIndex(validating: data, source: indexFile.path)
            try self.init(archive: path.appendingPathComponent(index.full.file), languages: languages)
        } else {
            guard path.lastPathComponent.hasSuffix(".tar.gz") else {
                throw UsageError("--bundle \(path.path): not a .tar.gz bundle, a bundles folder or an installed folder")
            }
            try self.init(archive: path, languages: languages)
        }
    }

    private init(pokedex: Pokedex, scratch: URL?, archive: String? = nil) {
        self.pokedex = pokedex
        self.scratch = scratch
        self.archive = archive
    }

    /// `error` naming the bundle where it names the temporary extract (a damaged database
    /// is often found by a query, after opening).
    func naming(_ error: any Error) -> any Error {
        guard let scratch, let archive else { return error }
        return ScratchFolder.renaming(error, scratch: scratch, archive: archive)
    }

    private init(archive: URL, languages: [String]) throws {
        let scratch = ScratchFolder.make("show")
        do {
            // Only what a reader opens; the sprites (most of the bytes) are checked, not written.
            let entries = try SafeExtractor(limits: Self.limits, synchronizes: false)
                .extract(archive: archive.path, to: scratch.path, only: [BundleManifest.fileName, BundleManifest.databaseName])
            if entries.contains(where: { $0.name == BundleManifest.deltaDatabaseName }) {
                throw UsageError("--bundle \(archive.path) is a delta, which only updates an installed device: "
                                 + "give a full bundle (pokedex-N.tar.gz), a bundles folder or a device folder")
            }
            // Its views and triggers run on every query: only the reader's own (an archive from
            // anywhere can hold an endless recursive view), as install and verify check.
            let database = scratch.appendingPathComponent(BundleManifest.databaseName)
            try DeviceDatabaseSchema.check(at: database, file: archive.path)
            self.init(pokedex: try Pokedex(databaseAt: database, languages: languages), scratch: scratch,
                      archive: archive.path)
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw ScratchFolder.renaming(error, scratch: scratch, archive: archive.path)
        }
    }

    /// Removes the temporary extract; call when done.
    func close() {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }
}
