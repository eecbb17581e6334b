import Foundation
import PokeSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Installs and updates a device folder from an `index.json` URL or a bundles folder,
/// as DESIGN's "Installing on a device" fixes it: one install at a time, the delta from
/// the installed version when the index has one, else the full bundle, every download
/// checked, and one atomic switch of `current`. Killed at any moment, the folder still
/// opens at the old version, and the next update finishes the job.
public struct Updater: Sendable {
    /// The device folder (`DIR`).
    public let folder: URL
    let applier: DeltaApplier

    /// - Parameters:
    ///   - folder: the device folder; created on the first install.
    ///   - applier: applies deltas (its search rebuild is the device database builder's).
    public init(folder: URL, applier: DeltaApplier = DeltaApplier()) {
        self.folder = folder
        self.applier = applier
    }

    /// What the installed database says of itself.
    struct Installed {
        var version: Int
        var lineage: String
        var profile: String
        var database: URL
    }

    /// Brings the device folder to the index's latest version.
    /// - Parameters:
    ///   - source: an index URL (`https://.../index.json` or its folder) or a bundles folder.
    ///   - allowDowngrade: install an index older than the installed version of the same lineage.
    ///   - progress: called as the update moves on (from the calling task).
    /// - Returns: what was installed, from what, how, and the pokemon ids added and removed.
    /// - Throws: ``UpdateError``; the folder is unchanged whenever it throws.
    public func update(from source: URL, allowDowngrade: Bool = false,
                       progress: @escaping @Sendable (UpdateProgress) -> Void = { _ in }) async throws -> UpdateResult {
        let device = DeviceFolder(root: folder)
        try device.checkOwnership()
        try device.prepare()
        let lock = try device.lock()
        defer { close(lock) }
        device.removeLeftovers()

        let source = UpdateSource(source)
        progress(.readingIndex)
        let index = try await source.readIndex()
        let sourceName = source.indexURL.isFileURL ? source.indexURL.path : source.indexURL.absoluteString
        guard index.schemaVersion <= DeviceSchema.version else {
            throw UpdateError.newerSchema(source: sourceName, schemaVersion: index.schemaVersion, supported: DeviceSchema.version)
        }
        if let problem = index.inconsistency {
            throw UpdateError.badBundle(path: sourceName, reason: problem)
        }
        let installed = readInstalled(device)
        let sameLine = installed.map { $0.lineage == index.lineage && $0.profile == index.profile.json } ?? false
        if let installed, installed.lineage == index.lineage {
            if installed.version == index.latest, sameLine {
                return UpdateResult(installedVersion: installed.version, fromVersion: installed.version, kind: .alreadyCurrent,
                                    bytesDownloaded: 0, addedPokemon: [], removedPokemon: [])
            }
            if installed.version > index.latest, !allowDowngrade {
                throw UpdateError.downgradeRefused(source: sourceName, installed: installed.version, offered: index.latest)
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
            } catch UpdateError.digestMismatch {
                // DESIGN: a delta that fails its digest gives way to the full bundle.
                device.removeLeftovers()
            }
        }
        if built == nil {
            built = try await installFull(index.full, index: index, device: device, source: source,
                                          downloaded: &downloaded, progress: progress)
        }
        progress(.switching(version: index.latest))
        let target = device.version(index.latest)
        try? FileManager.default.removeItem(at: target)
        do { try FileManager.default.moveItem(at: built!, to: target) } catch {
            throw UpdateError.io(path: target.path, reason: error.localizedDescription)
        }
        try DeviceFolder.syncFolder(device.versions)
        let (added, removed) = try pokemonChanges(old: installed?.database, new: target.appendingPathComponent("pokedex.sqlite"))
        try device.switchCurrent(to: index.latest)
        device.removeLeftovers()
        return UpdateResult(installedVersion: index.latest, fromVersion: installed?.version, kind: kind,
                            bytesDownloaded: downloaded, addedPokemon: added, removedPokemon: removed)
    }

    /// The installed version's meta, or nil when `current` is missing or does not open.
    func readInstalled(_ device: DeviceFolder) -> Installed? {
        let database = device.current.appendingPathComponent("pokedex.sqlite")
        guard let db = try? Database(path: database.path, mode: .immutable),
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
                let db = try Database(path: url.path, mode: .immutable)
                return Set(try db.rows("SELECT id FROM pokemon") { $0.int(0) })
            } catch {
                throw UpdateError.io(path: url.path, reason: "\(error)")
            }
        }
        let newIDs = try ids(new)
        let oldIDs = try old.map(ids) ?? []
        return (newIDs.subtracting(oldIDs).sorted(), oldIDs.subtracting(newIDs).sorted())
    }
}
