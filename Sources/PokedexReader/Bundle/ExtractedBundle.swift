import Foundation
import PokeArchive

/// A full bundle or delta extracted into a folder and checked: its manifest sound and,
/// when an index named it, matching that entry; exactly the manifest's files, each with
/// its size and SHA-256, adding up to `unpacked_size`; its database in rollback-journal
/// mode; a delta's `changes.sqlite` only the schema a delta has, and a full bundle's
/// `pokedex.sqlite` no view, trigger or index but the reader's own. The updater and
/// `pokesync verify` both build one, so an archive one accepts the other accepts.
package struct ExtractedBundle: Sendable {
    /// The extraction folder.
    package let folder: URL
    package let manifest: BundleManifest

    /// `pokedex.sqlite` of a full bundle, `changes.sqlite` of a delta.
    package var database: URL {
        folder.appendingPathComponent(manifest.isDelta ? BundleManifest.deltaDatabaseName : BundleManifest.databaseName)
    }

    /// Reads and checks the `manifest.json` extracted into `folder` on its own.
    /// - Parameter file: the archive's name, for messages.
    /// - Throws: ``BundleCheckError``.
    package static func manifest(in folder: URL, file: String) throws(BundleCheckError) -> BundleManifest {
        let url = folder.appendingPathComponent(BundleManifest.fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw BundleCheckError(file: file, reason: "has no manifest.json")
        }
        return try BundleManifest(validating: data, file: file)
    }

    /// Checks the extracted files against `manifest` (already read by ``manifest(in:file:)``
    /// and, for an index's file, held against its entry).
    /// - Parameters:
    ///   - folder: where the archive was extracted.
    ///   - manifest: its manifest.
    ///   - entries: what the archive held (SafeExtractor's list).
    ///   - file: the archive's name, for messages.
    ///   - tables: the schema a delta's `changes.sqlite` must hold (the declaration's).
    /// - Throws: ``BundleCheckError`` naming `file` and the first problem.
    package init(folder: URL, manifest: BundleManifest, entries: [TarEntry], file: String,
                 tables: [DeviceSchema.Table] = DeviceSchema.tables) throws(BundleCheckError) {
        let files = entries.filter { $0.kind == .file }
        if let problem = manifest.mismatch(inExtracted: folder, holding: files.map(\.name)) {
            throw BundleCheckError(file: file, reason: problem)
        }
        let unpacked = files.reduce(0) { $0 + $1.size }
        guard unpacked == manifest.unpackedSize else {
            throw BundleCheckError(file: file, reason: "unpacks to \(unpacked) bytes, not its manifest's unpacked_size \(manifest.unpackedSize)")
        }
        self.folder = folder
        self.manifest = manifest
        guard BundleManifest.isRollbackJournal(database.path) else {
            throw BundleCheckError(file: file, reason: "holds a \(database.lastPathComponent) that is not in rollback-journal mode (WAL?)")
        }
        if manifest.isDelta, let problem = ChangesSchema.problem(at: database, tables: tables) {
            throw BundleCheckError(file: file, reason: "holds a changes.sqlite that \(problem)")
        }
        if !manifest.isDelta { try DeviceDatabaseSchema.check(at: database, file: file, tables: tables) }
    }
}
