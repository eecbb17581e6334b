import Foundation
import PokedexReader
import PokeArchive
import PokeSQLite

// Building `versions/N` in `.tmp`: download, check, extract, check again, assemble.
// Nothing here touches `current` or the installed version: a failure leaves only
// `.tmp` leftovers, which the next run removes.

extension Updater {
    /// The most entries a bundle may hold: every sprite of `--sprites all` (about 52,000)
    /// with room to grow.
    static let maxEntries = 500_000

    /// Downloads, checks and extracts `entry`; returns the checked extraction.
    func fetchAndExtract(_ entry: BundleIndex.Entry, index: BundleIndex, device: DeviceFolder, source: UpdateSource,
                         downloaded: inout Int, progress: @escaping @Sendable (UpdateProgress) -> Void)
        async throws -> ExtractedBundle {
        // The entry's name is checked (plain, short) with the index: it is safe in a path.
        let archive = device.tmp.appendingPathComponent("download-\(entry.file)")
        let file = entry.file, total = entry.size
        downloaded += try await source.download(entry, to: archive, settings: settings) {
            progress(.downloading(file: file, bytes: $0, total: total))
        }
        try Task.checkCancellation()
        progress(.extracting(file: entry.file))
        let folder = device.tmp.appendingPathComponent("extract-\(entry.to)", isDirectory: true)
        try? FileManager.default.removeItem(at: folder)
        // Caps from the index: the download's size, what it unpacks to, and one entry per
        // byte-pair at most (a million tiny files stop long before they are written).
        let limits = TarLimits(maxUnpackedBytes: entry.unpackedSize, maxEntryCount: Self.maxEntries,
                               maxCompressedBytes: entry.size)
        return try await BlockingStep.run { flag in
            let entries: [TarEntry]
            do {
                // No fsync here: syncTree syncs every file the new version keeps before the
                // switch (a delta's changes.sqlite is not kept), and can stop while it waits.
                entries = try SafeExtractor(limits: limits, synchronizes: false, stop: { flag.isStopped })
                    .extract(archive: archive.path, to: folder.path)
            } catch let error as TarError {
                if case .io(let path, let operation, let reason) = error {
                    // The archive is the one file extraction reads; every other path is written.
                    if path == archive.path { throw UpdateError.unreadable(path: path, reason: "\(operation): \(reason)") }
                    throw UpdateError.io(path: path, reason: "\(operation): \(reason)")
                }
                throw UpdateError.badBundle(path: entry.file, reason: error.description)
            }
            try? FileManager.default.removeItem(at: archive)
            try flag.check()
            do {
                let manifest = try ExtractedBundle.manifest(in: folder, file: entry.file)
                try manifest.check(against: entry, lineage: index.lineage, profile: index.profile)
                guard manifest.schemaVersion <= DeviceSchema.version else {
                    throw UpdateError.newerSchema(source: entry.file, schemaVersion: manifest.schemaVersion,
                                                  supported: DeviceSchema.version)
                }
                return try ExtractedBundle(folder: folder, manifest: manifest, entries: entries, file: entry.file,
                                           tables: tables)
            } catch let error as BundleCheckError {
                throw UpdateError.badBundle(path: error.file, reason: error.reason)
            }
        }
    }

    /// A full bundle: its files are the new version.
    func installFull(_ entry: BundleIndex.Entry, index: BundleIndex, device: DeviceFolder, source: UpdateSource,
                     downloaded: inout Int, progress: @escaping @Sendable (UpdateProgress) -> Void) async throws -> URL {
        let extracted = try await fetchAndExtract(entry, index: index, device: device, source: source,
                                                  downloaded: &downloaded, progress: progress)
        let (folder, manifest) = (extracted.folder, extracted.manifest)
        progress(.building(version: entry.to))
        try await BlockingStep.run { flag in
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(BundleManifest.fileName))
            let database = folder.appendingPathComponent(BundleManifest.databaseName)
            try checkDigest(database, manifest: manifest, file: entry.file, stop: flag)
            try syncTree(folder, stop: flag)
        }
        return folder
    }

    /// A delta: the current database copied and changed, unchanged sprites linked from
    /// the installed version, the delta's sprites added, removed sprites left out.
    func installDelta(_ entry: BundleIndex.Entry, index: BundleIndex, on installed: Installed, device: DeviceFolder,
                      source: UpdateSource, downloaded: inout Int,
                      progress: @escaping @Sendable (UpdateProgress) -> Void) async throws -> URL {
        let bundle = try await fetchAndExtract(entry, index: index, device: device, source: source,
                                               downloaded: &downloaded, progress: progress)
        let (extracted, manifest) = (bundle.folder, bundle.manifest)
        progress(.building(version: entry.to))
        return try await BlockingStep.run { flag in
            try build(entry, extracted: extracted, manifest: manifest, on: installed, device: device, stop: flag)
        }
    }

    /// The delta's version assembled in `.tmp/build-N`, on the step's own thread.
    private func build(_ entry: BundleIndex.Entry, extracted: URL, manifest: BundleManifest, on installed: Installed,
                       device: DeviceFolder, stop: StopFlag) throws -> URL {
        let build = device.tmp.appendingPathComponent("build-\(entry.to)", isDirectory: true)
        try? FileManager.default.removeItem(at: build)
        do { try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true) } catch {
            throw UpdateError.io(path: build.path, reason: error.localizedDescription)
        }
        let database = build.appendingPathComponent(BundleManifest.databaseName)
        do {
            try applier.apply(changes: extracted.appendingPathComponent(BundleManifest.deltaDatabaseName), to: installed.database,
                              writingTo: database, manifest: manifest, stop: { stop.isStopped })
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
            try stop.check()
            try DeviceFolder.hardLink(oldRoot.appendingPathComponent(path), to: build.appendingPathComponent(path))
        }
        for path in carried where path.hasPrefix("sprites/") {
            try stop.check()
            let target = build.appendingPathComponent(path)
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.moveItem(at: extracted.appendingPathComponent(path), to: target)
            } catch {
                throw UpdateError.io(path: target.path, reason: error.localizedDescription)
            }
        }
        try syncTree(build, stop: stop)
        return build
    }

    private func checkDigest(_ database: URL, manifest: BundleManifest, file: String, stop: StopFlag) throws {
        let actual: String
        do {
            let db = try Database.readerConnection(path: database.path, mode: .readOnly)
            // No bound on the work (the digest reads every row once); only the stop, polled
            // every 10,000 SQLite steps, a few hundred rows.
            db.limitWork(steps: Int.max / 2, stop: { stop.isStopped })
            actual = try ContentDigest.compute(db, tables: tables).hex
        } catch {
            try stop.check()
            throw UpdateError.badBundle(path: file, reason: "holds a \(BundleManifest.databaseName) that cannot be read: \(error)")
        }
        guard actual == manifest.contentDigest.lowercased() else {
            throw UpdateError.digestMismatch(path: file, expected: manifest.contentDigest, actual: actual)
        }
    }

    /// fsync every file and folder of a new version before `current` may point at it.
    private func syncTree(_ root: URL, stop: StopFlag) throws {
        for path in DeviceFolder.files(under: root) {
            try stop.check()
            try FileSync.sync(root.appendingPathComponent(path), stop: stop)
        }
        try DeviceFolder.syncFolder(root)
        let sprites = root.appendingPathComponent("sprites")
        if let walker = FileManager.default.enumerator(atPath: sprites.path) {
            for case let relative as String in walker {
                var isFolder: ObjCBool = false
                let url = sprites.appendingPathComponent(relative)
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
                    try stop.check()
                    try DeviceFolder.syncFolder(url)
                }
            }
        }
    }
}
