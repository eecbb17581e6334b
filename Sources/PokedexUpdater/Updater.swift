import Foundation
import PokedexReader
import PokeSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Installs and updates a device folder from an `index.json` URL or a bundles folder,
/// as <doc:PokedexUpdater/Installing> fixes it: one install at a time, the delta from
/// the installed version when the index has one, else the full bundle, every download
/// checked, and one atomic switch of `current`. Killed at any moment, the folder still
/// opens at the old version, and the next update finishes the job.
public struct Updater: Sendable {
    /// The device folder (`DIR`).
    public let folder: URL
    /// How downloads talk to a server (deadline, session configuration).
    public let settings: UpdaterSettings
    /// The schema installs are checked against (a delta's tables, the digest): the
    /// declaration's, but for a test that adds a column to a copy of it.
    let tables: [DeviceSchema.Table]
    let applier: DeltaApplier

    /// - Parameters:
    ///   - folder: the device folder; created on the first install.
    ///   - settings: the download deadline and session configuration.
    public init(folder: URL, settings: UpdaterSettings = UpdaterSettings()) {
        self.init(folder: folder, settings: settings, tables: DeviceSchema.tables)
    }

    /// An updater for databases of the schema `tables` (a test's copy of the declaration).
    package init(folder: URL, settings: UpdaterSettings = UpdaterSettings(), tables: [DeviceSchema.Table]) {
        self.folder = folder
        self.settings = settings
        self.tables = tables
        self.applier = DeltaApplier(tables: tables)
    }

    /// What the installed database says of itself.
    struct Installed {
        var version: Int
        var lineage: String
        var profile: String
        var database: URL
    }

    /// Brings the device folder to the index's latest version.
    ///
    /// A `Pokedex` the app has open goes on reading the version it opened; once this
    /// returns a new version, its `Pokedex.needsReopen` is true, and one line shows the
    /// new data: `if pokedex.needsReopen { pokedex = try pokedex.reopened() }`.
    /// Blocking work runs on threads of its own, never on Swift's cooperative threads;
    /// cancelling the task stops the update within 100 ms, whatever it is doing.
    /// - Parameters:
    ///   - source: an index URL (`https://.../index.json` or its folder) or a bundles folder.
    ///   - allowDowngrade: install an index older than the installed version of the same lineage.
    ///   - progress: called as the update moves on (from the calling task).
    /// - Returns: what was installed, from what, how, and the pokemon ids added and removed.
    /// - Throws: ``UpdateError``, or `CancellationError` when the task is cancelled; the
    ///   folder is unchanged whenever it throws, and `.tmp` is emptied.
    public func update(from source: URL, allowDowngrade: Bool = false,
                       progress: @escaping @Sendable (UpdateProgress) -> Void = { _ in }) async throws -> UpdateResult {
        try Task.checkCancellation()
        let device = DeviceFolder(root: folder)
        // Every file-system step runs off Swift's cooperative threads (BlockingStep): the
        // lock is a file descriptor's, not a thread's, so it holds wherever it was taken.
        let locks = try await BlockingStep.run { _ in
            try device.checkOwnership()
            try device.prepare()
            let locks = try device.lock()
            device.removeLeftovers()
            return locks
        }
        defer { locks.forEach { close($0) } }
        do {
            return try await updateLocked(device, from: UpdateSource(source), allowDowngrade: allowDowngrade, progress: progress)
        } catch {
            // A failed or cancelled install leaves nothing behind in .tmp (a download may be
            // as large as the bundle), nor a half-built version: removed to the end, cancelled or not.
            _ = try? await BlockingStep.runToEnd { device.removeLeftovers() }
            throw error
        }
    }

    private func updateLocked(_ device: DeviceFolder, from source: UpdateSource, allowDowngrade: Bool,
                              progress: @escaping @Sendable (UpdateProgress) -> Void) async throws -> UpdateResult {
        progress(.readingIndex)
        let installed = try await BlockingStep.run { _ in readInstalled(device) }
        let kept = installed == nil ? nil : device.keptETag(for: source.indexURL)
        let index: BundleIndex, etag: String?
        switch try await source.readIndex(settings: settings, etag: source.isRemote ? kept : nil) {
        case .notModified:
            // <doc:PokedexUpdater/Installing#The-nightly-check>: a nightly check is one conditional request; the index has not changed
            // since this device installed from it.
            let version = installed?.version ?? 0
            return UpdateResult(installedVersion: version, fromVersion: version, kind: .alreadyCurrent,
                                bytesDownloaded: 0, addedPokemon: [], removedPokemon: [])
        case let .index(read, tag):
            (index, etag) = (read, tag)
        }
        guard index.schemaVersion <= DeviceSchema.version else {
            throw UpdateError.newerSchema(source: source.name, schemaVersion: index.schemaVersion, supported: DeviceSchema.version)
        }
        let sameLine = installed.map { $0.lineage == index.lineage && $0.profile == index.profile.json } ?? false
        if let installed, installed.lineage == index.lineage {
            if installed.version == index.latest, sameLine {
                if source.isRemote { device.keepETag(etag, for: source.indexURL) }
                return UpdateResult(installedVersion: installed.version, fromVersion: installed.version, kind: .alreadyCurrent,
                                    bytesDownloaded: 0, addedPokemon: [], removedPokemon: [])
            }
            if installed.version > index.latest, !allowDowngrade {
                throw UpdateError.downgradeRefused(source: source.name, installed: installed.version, offered: index.latest)
            }
        }
        var downloaded = 0
        var kind = UpdateResult.Kind.full
        var built: URL?
        if let installed, sameLine, let delta = index.deltas.first(where: { $0.from == installed.version && $0.to == index.latest }) {
            do {
                built = try await installDelta(delta, index: index, on: installed, device: device, source: source,
                                               downloaded: &downloaded, progress: progress)
                kind = .delta
            } catch UpdateError.digestMismatch, UpdateError.unreachable {
                // <doc:PokedexUpdater/Installing#Choosing-a-file>: a device that cannot use its delta (its digest fails, it answers
                // 404 or 500, its transfer is cut short) takes the full bundle.
                try await BlockingStep.run { _ in device.removeLeftovers() }
            }
        }
        if built == nil {
            built = try await installFull(index.full, index: index, device: device, source: source,
                                          downloaded: &downloaded, progress: progress)
        }
        try Task.checkCancellation()
        progress(.switching(version: index.latest))
        // Never the name `current` points at: the live version stays whole until the switch.
        let name = device.newVersionName(index.latest)
        let target = device.versions.appendingPathComponent(name, isDirectory: true)
        let (added, removed) = try await BlockingStep.run { [built] flag in
            // Up to the switch, a cancellation still leaves the device as it was (the moved
            // folder is a leftover the cleanup removes); the fsync is the one wait not cut short.
            do { try FileManager.default.moveItem(at: built!, to: target) } catch {
                throw UpdateError.io(path: target.path, reason: error.localizedDescription)
            }
            try flag.check()
            try DeviceFolder.syncFolder(device.versions)
            try flag.check()
            return try pokemonChanges(old: installed?.database, new: target.appendingPathComponent(BundleManifest.databaseName))
        }
        try Task.checkCancellation()
        // The kept ETag belongs to what `current` named: forget it before the switch.
        // Once `current` moves the update is done: the switch and the old version's removal
        // run to their end whatever happens to the task.
        try await BlockingStep.runToEnd { [etag] in
            device.keepETag(nil, for: source.indexURL)
            try device.switchCurrent(to: name)
            if source.isRemote { device.keepETag(etag, for: source.indexURL) }
            device.removeLeftovers()
        }
        return UpdateResult(installedVersion: index.latest, fromVersion: installed?.version, kind: kind,
                            bytesDownloaded: downloaded, addedPokemon: added, removedPokemon: removed)
    }

    /// The installed version's meta, or nil when `current` is missing or does not open.
    func readInstalled(_ device: DeviceFolder) -> Installed? {
        let database = device.current.appendingPathComponent(BundleManifest.databaseName)
        guard let db = try? Database.readerConnection(path: database.path, mode: .immutable),
              let meta = try? db.rows("SELECT key, value FROM meta", [], { row -> (String, String) in
                  (row.text(0), row.optionalText(1) ?? "") }) else { return nil }
        let values = Dictionary(meta, uniquingKeysWith: { (first: String, _: String) in first })
        guard let version = values[DeviceSchema.MetaKey.version].flatMap(Int.init),
              let lineage = values[DeviceSchema.MetaKey.lineage] else { return nil }
        return Installed(version: version, lineage: lineage, profile: values[DeviceSchema.MetaKey.profile] ?? "",
                         database: database)
    }

    /// Pokemon ids in `new` and not `old`, and in `old` and not `new`.
    private func pokemonChanges(old: URL?, new: URL) throws -> ([Int], [Int]) {
        func ids(_ url: URL) throws -> Set<Int> {
            do {
                let db = try Database.readerConnection(path: url.path, mode: .immutable)
                return Set(try db.rows("SELECT id FROM pokemon") { $0.int(0) })
            } catch {
                throw UpdateError.unreadable(path: url.path, reason: "\(error)")
            }
        }
        let newIDs = try ids(new)
        let oldIDs = try old.map(ids) ?? []
        return (newIDs.subtracting(oldIDs).sorted(), oldIDs.subtracting(newIDs).sorted())
    }
}
