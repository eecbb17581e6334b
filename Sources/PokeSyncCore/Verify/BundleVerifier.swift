import Foundation
import PokeArchive
import PokeSQLite
import PokedexReader
import PokedexUpdater

/// `pokesync verify` on what devices download: a full bundle, a delta, or a bundles
/// folder (its index and every file it names). Checks gzip and tar integrity (through
/// the same safe extraction a device uses), every manifest size and hash, the database's
/// `PRAGMA integrity_check`, its `meta`, and `content_digest` recomputed; a delta is
/// applied to its base's database when the folder still holds that full bundle.
///
/// The first bad file is named in the error (exit 65).
package struct BundleVerifier {
    package let scratch: URL

    /// - Parameter scratch: a folder for temporary extracts (removed as it goes).
    package init(scratch: URL) { self.scratch = scratch }

    /// What was checked, one line each.
    package private(set) var checked: [String] = []

    /// Verifies a bundles folder: `index.json`, the full bundle, every delta.
    /// - Throws: `ExportError.bundleFormat`, `TarError` (65) naming the first bad file.
    package mutating func verifyFolder(_ folder: URL) throws {
        let indexFile = folder.appendingPathComponent(BundlesFolder.indexName)
        guard let data = FileManager.default.contents(atPath: indexFile.path) else {
            throw ExportError.bundleFormat(file: indexFile.path, reason: "missing: not a bundles folder")
        }
        // The reader library's loader: the same rules a device applies (numbers, names, versions).
        let index = try BundleIndex(validating: data, source: indexFile.path)
        guard index.schemaVersion <= DeviceSchema.version else {
            throw ExportError.bundleFormat(file: indexFile.path, reason: "schema \(index.schemaVersion): newer than this build reads")
        }
        let full = try verifyArchive(folder.appendingPathComponent(index.full.file), expected: index.full, index: index)
        defer { try? FileManager.default.removeItem(at: full.folder) }
        for delta in index.deltas {
            let base = folder.appendingPathComponent(BundlesFolder.fullName(version: delta.from ?? -1))
            var baseExtract: Extract?
            if FileManager.default.fileExists(atPath: base.path) {
                baseExtract = try verifyArchive(base, expected: nil, index: nil)
            }
            defer { if let baseExtract { try? FileManager.default.removeItem(at: baseExtract.folder) } }
            let extract = try verifyArchive(folder.appendingPathComponent(delta.file), expected: delta, index: index,
                                            base: baseExtract.map { $0.folder.appendingPathComponent(BundleManifest.databaseName) })
            try? FileManager.default.removeItem(at: extract.folder)
        }
        checked.append("\(indexFile.path): version \(index.latest), \(index.deltas.count) delta(s), lineage \(index.lineage)")
    }

    /// An extracted, checked archive.
    package struct Extract {
        package var folder: URL
        package var manifest: BundleManifest
    }

    /// Verifies one archive; `expected` and `index` are what an index says of it.
    /// - Parameter base: the base version's database, to apply a delta to.
    /// - Returns: the extract (the caller removes it).
    @discardableResult
    package mutating func verifyArchive(_ file: URL, expected: BundleIndex.Entry?, index: BundleIndex?,
                                base: URL? = nil) throws -> Extract {
        guard let (size, digest) = SHA256.hashFile(atPath: file.path) else {
            throw ExportError.bundleFormat(file: file.path, reason: "missing or unreadable")
        }
        if let expected {
            if let problem = expected.validationProblem { throw ExportError.bundleFormat(file: file.path, reason: "its index entry \(problem)") }
            guard size == expected.size, digest.hex == expected.sha256.lowercased() else {
                throw ExportError.bundleFormat(file: file.path, reason: "its size or SHA-256 is not what index.json says")
            }
        }
        let limits = TarLimits(maxUnpackedBytes: expected?.unpackedSize ?? (8 << 30), maxEntryCount: 2_000_000,
                               maxCompressedBytes: size)
        let folder = scratch.appendingPathComponent("verify-\(UUID().uuidString.prefix(8))")
        try FileSystem.createDirectory(scratch)
        let entries = try SafeExtractor(limits: limits, synchronizes: false).extract(archive: file.path, to: folder.path)
        do {
            let manifest = try checkManifest(file, folder: folder, entries: entries, index: index,
                                             expected: expected)
            if manifest.isDelta {
                try checkDelta(file, folder: folder, manifest: manifest, base: base)
            } else {
                try checkDatabase(file, database: folder.appendingPathComponent(BundleManifest.databaseName), manifest: manifest)
            }
            checked.append("\(file.path): \(manifest.isDelta ? "delta \(manifest.baseVersion ?? 0) → " : "version ")\(manifest.version), "
                           + "\(manifest.files.count) files, digest \(manifest.contentDigest.prefix(12))")
            return Extract(folder: folder, manifest: manifest)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw Self.naming(file, error, extract: folder)
        }
    }

    /// Damage found in a file of the extract (SQLite's "malformed" naming its scratch path)
    /// is reported as the bundle's: the extract is gone by the time the message is read.
    static func naming(_ file: URL, _ error: any Error, extract folder: URL) -> any Error {
        if case .bundleFormat? = error as? ExportError { return error }
        guard let failure = error as? any PokeSyncError, failure.exitStatus == .dataError,
              failure.description.contains(folder.path) else { return error }
        return ExportError.bundleFormat(file: file.path, reason: failure.description.replacingOccurrences(of: folder.path + "/", with: ""))
    }

    /// The reader library's checks (``ExtractedBundle``), as a device makes them, naming `file`.
    private func checkManifest(_ file: URL, folder: URL, entries: [TarEntry], index: BundleIndex?,
                               expected: BundleIndex.Entry?) throws -> BundleManifest {
        do {
            let manifest = try ExtractedBundle.manifest(in: folder, file: file.path)
            guard manifest.schemaVersion <= DeviceSchema.version else {
                throw ExportError.bundleFormat(file: file.path, reason: "manifest schema \(manifest.schemaVersion): newer than this build reads")
            }
            if let index, let expected {
                var named = expected
                named.file = file.path
                try manifest.check(against: named, lineage: index.lineage, profile: index.profile)
            }
            return try ExtractedBundle(folder: folder, manifest: manifest, entries: entries, file: file.path).manifest
        } catch let error as BundleCheckError {
            throw ExportError.bundleFormat(file: error.file, reason: error.reason)
        }
    }

    private func checkDatabase(_ file: URL, database url: URL, manifest: BundleManifest) throws {
        func bad(_ reason: String) -> ExportError { ExportError.bundleFormat(file: file.path, reason: "\(BundleManifest.databaseName): \(reason)") }
        let database = try Database(path: url.path, mode: .immutable)
        let integrity = try database.rows("PRAGMA integrity_check", []) { $0.text(0) }
        guard integrity == ["ok"] else { throw bad("integrity_check: \(integrity.prefix(3).joined(separator: "; "))") }
        guard BundleManifest.isRollbackJournal(url.path) else { throw bad("not in rollback-journal mode (WAL?)") }
        let meta = Dictionary(try database.rows("SELECT key, value FROM meta", []) { ($0.text(0), $0.text(1)) },
                              uniquingKeysWith: { first, _ in first })
        typealias Key = DeviceSchema.MetaKey
        guard meta[Key.lineage] == manifest.lineage, meta[Key.version] == String(manifest.version),
              meta[Key.profile] == manifest.profile.json, meta[Key.schemaVersion] == String(manifest.schemaVersion) else {
            throw bad("meta (lineage, version, profile, schema) does not match the manifest")
        }
        let digest = try ContentDigest.compute(database).hex
        guard digest == manifest.contentDigest, meta[Key.contentDigest] == digest else {
            throw bad("content_digest recomputed is \(digest.prefix(12)), the manifest says \(manifest.contentDigest.prefix(12))")
        }
    }

    private func checkDelta(_ file: URL, folder: URL, manifest: BundleManifest, base: URL?) throws {
        let changes = folder.appendingPathComponent(BundleManifest.deltaDatabaseName)
        let database = try Database(path: changes.path, mode: .immutable)
        let integrity = try database.rows("PRAGMA integrity_check", []) { $0.text(0) }
        guard integrity == ["ok"] else {
            throw ExportError.bundleFormat(file: file.path, reason: "changes.sqlite: integrity_check: \(integrity.prefix(3).joined(separator: "; "))")
        }
        guard let base else { return }
        let applied = folder.appendingPathComponent("applied.sqlite")
        do {
            try DeltaApplier().apply(changes: changes, to: base, writingTo: applied, manifest: manifest)
        } catch {
            throw ExportError.bundleFormat(file: file.path, reason: "applied to version \(manifest.baseVersion ?? 0): \(error)")
        }
    }
}
