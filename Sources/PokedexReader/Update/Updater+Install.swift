import Foundation
import PokeArchive
import PokeSQLite

// Building `versions/N` in `.tmp`: download, check, extract, check again, assemble.
// Nothing here touches `current` or the installed version: a failure leaves only
// `.tmp` leftovers, which the next run removes.

extension Updater {
    /// The most entries a bundle may hold: every sprite of `--sprites all` (about 52,000)
    /// with room to grow.
    static let maxEntries = 500_000

    /// Downloads, checks and extracts `entry`; returns the extraction folder and the manifest.
    func fetchAndExtract(_ entry: BundleIndex.Entry, index: BundleIndex, device: DeviceFolder, source: UpdateSource,
                         downloaded: inout Int, progress: @escaping @Sendable (UpdateProgress) -> Void)
        async throws -> (folder: URL, manifest: BundleManifest) {
        let archive = device.tmp.appendingPathComponent("download-\(entry.file)")
        let file = entry.file, total = entry.size
        downloaded += try await source.download(entry, to: archive) { progress(.downloading(file: file, bytes: $0, total: total)) }
        progress(.extracting(file: entry.file))
        let folder = device.tmp.appendingPathComponent("extract-\(entry.to)", isDirectory: true)
        try? FileManager.default.removeItem(at: folder)
        // Caps from the index: the download's size, what it unpacks to, and one entry per
        // byte-pair at most (a million tiny files stop long before they are written).
        let limits = TarLimits(maxUnpackedBytes: entry.unpackedSize, maxEntryCount: Self.maxEntries,
                               maxCompressedBytes: entry.size)
        let written: [String]
        do {
            written = try SafeExtractor(limits: limits).extract(archive: archive.path, to: folder.path)
                .filter { $0.kind == .file }.map(\.name)
        } catch let error as TarError {
            if case .io(let path, let operation, let reason) = error { throw UpdateError.io(path: path, reason: "\(operation): \(reason)") }
            throw UpdateError.badBundle(path: entry.file, reason: error.description)
        }
        try? FileManager.default.removeItem(at: archive)
        let manifest = try checkManifest(in: folder, entry: entry, index: index, written: written)
        return (folder, manifest)
    }

    /// The manifest must match the index, and every file it lists must be there with its size and hash.
    private func checkManifest(in folder: URL, entry: BundleIndex.Entry, index: BundleIndex,
                               written: [String]) throws -> BundleManifest {
        let manifest: BundleManifest
        do {
            manifest = try JSONDecoder().decode(BundleManifest.self,
                                                from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
        } catch {
            throw UpdateError.badBundle(path: entry.file, reason: "has no readable manifest.json: \(error)")
        }
        let isDelta = entry.from != nil
        var mismatches: [String] = []
        if manifest.format != (isDelta ? BundleManifest.deltaFormat : BundleManifest.fullFormat) { mismatches.append("format \(manifest.format)") }
        if manifest.lineage != index.lineage { mismatches.append("lineage \(manifest.lineage)") }
        if manifest.version != entry.to { mismatches.append("version \(manifest.version)") }
        if manifest.baseVersion != entry.from { mismatches.append("base_version \(manifest.baseVersion.map(String.init) ?? "none")") }
        if manifest.profile != index.profile { mismatches.append("profile \(manifest.profile.json)") }
        guard mismatches.isEmpty else {
            throw UpdateError.badBundle(path: entry.file, reason: "does not match the index: its manifest has \(mismatches.joined(separator: ", "))")
        }
        guard manifest.schemaVersion <= DeviceSchema.version else {
            throw UpdateError.newerSchema(source: entry.file, schemaVersion: manifest.schemaVersion, supported: DeviceSchema.version)
        }
        guard manifest.formatVersion <= BundleManifest.currentFormatVersion else {
            throw UpdateError.badBundle(path: entry.file, reason: "is format version \(manifest.formatVersion), newer than this reader knows")
        }
        if let problem = manifest.fileListProblem { throw UpdateError.badBundle(path: entry.file, reason: problem) }
        if let problem = manifest.mismatch(inExtracted: folder, holding: written) {
            throw UpdateError.badBundle(path: entry.file, reason: problem)
        }
        let database = folder.appendingPathComponent(isDelta ? "changes.sqlite" : "pokedex.sqlite").path
        guard BundleManifest.isRollbackJournal(database) else {
            throw UpdateError.badBundle(path: entry.file, reason: "holds a database that is not in rollback-journal mode (WAL?)")
        }
        return manifest
    }

    /// A full bundle: its files are the new version.
    func installFull(_ entry: BundleIndex.Entry, index: BundleIndex, device: DeviceFolder, source: UpdateSource,
                     downloaded: inout Int, progress: @escaping @Sendable (UpdateProgress) -> Void) async throws -> URL {
        let (folder, manifest) = try await fetchAndExtract(entry, index: index, device: device, source: source,
                                                           downloaded: &downloaded, progress: progress)
        progress(.building(version: entry.to))
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("manifest.json"))
        let database = folder.appendingPathComponent("pokedex.sqlite")
        try checkDigest(database, manifest: manifest, file: entry.file)
        try syncTree(folder)
        return folder
    }

    /// A delta: the current database copied and changed, unchanged sprites linked from
    /// the installed version, the delta's sprites added, removed sprites left out.
    func installDelta(_ entry: BundleIndex.Entry, index: BundleIndex, on installed: Installed, device: DeviceFolder,
                      source: UpdateSource, downloaded: inout Int,
                      progress: @escaping @Sendable (UpdateProgress) -> Void) async throws -> URL {
        let (extracted, manifest) = try await fetchAndExtract(entry, index: index, device: device, source: source,
                                                              downloaded: &downloaded, progress: progress)
        progress(.building(version: entry.to))
        let build = device.tmp.appendingPathComponent("build-\(entry.to)", isDirectory: true)
        try? FileManager.default.removeItem(at: build)
        do { try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true) } catch {
            throw UpdateError.io(path: build.path, reason: error.localizedDescription)
        }
        let database = build.appendingPathComponent("pokedex.sqlite")
        do {
            try applier.apply(changes: extracted.appendingPathComponent("changes.sqlite"), to: installed.database,
                              writingTo: database, manifest: manifest)
        } catch let DeltaApplyError.digestMismatch(_, expected, actual) {
            throw UpdateError.digestMismatch(path: entry.file, expected: expected, actual: actual)
        } catch let DeltaApplyError.invalidChanges(_, reason) {
            // A delta that does not apply to this base (rows already there, say) cannot
            // give the manifest's digest either: the full bundle is the way on.
            throw UpdateError.digestMismatch(path: entry.file, expected: manifest.contentDigest, actual: "none (\(reason))")
        } catch let DeltaApplyError.io(path, reason) {
            throw UpdateError.io(path: path, reason: reason)
        }
        let removed = Set(manifest.removedSprites ?? [])
        let carried = Set(manifest.files.map(\.path))
        let oldRoot = installed.database.deletingLastPathComponent()
        for path in DeviceFolder.files(under: oldRoot.appendingPathComponent("sprites")).map({ "sprites/" + $0 })
        where !removed.contains(path) && !carried.contains(path) {
            try DeviceFolder.hardLink(oldRoot.appendingPathComponent(path), to: build.appendingPathComponent(path))
        }
        for path in carried where path.hasPrefix("sprites/") {
            let target = build.appendingPathComponent(path)
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.moveItem(at: extracted.appendingPathComponent(path), to: target)
            } catch {
                throw UpdateError.io(path: target.path, reason: error.localizedDescription)
            }
        }
        try syncTree(build)
        return build
    }

    private func checkDigest(_ database: URL, manifest: BundleManifest, file: String) throws {
        let actual: String
        do {
            actual = try ContentDigest.compute(Database(path: database.path, mode: .readOnly)).hex
        } catch {
            throw UpdateError.badBundle(path: file, reason: "holds a pokedex.sqlite that cannot be read: \(error)")
        }
        guard actual == manifest.contentDigest.lowercased() else {
            throw UpdateError.digestMismatch(path: file, expected: manifest.contentDigest, actual: actual)
        }
    }

    /// fsync every file and folder of a new version before `current` may point at it.
    private func syncTree(_ root: URL) throws {
        for path in DeviceFolder.files(under: root) { try DeviceFolder.syncFile(root.appendingPathComponent(path)) }
        try DeviceFolder.syncFolder(root)
        let sprites = root.appendingPathComponent("sprites")
        if let walker = FileManager.default.enumerator(atPath: sprites.path) {
            for case let relative as String in walker {
                var isFolder: ObjCBool = false
                let url = sprites.appendingPathComponent(relative)
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
                    try DeviceFolder.syncFolder(url)
                }
            }
        }
    }
}
