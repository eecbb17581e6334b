import Foundation
import PokeArchive
import PokedexReader

/// `pokesync export --format bundle`: one version as the full bundle `pokedex-N.tar.gz`,
/// a delta from every older retained version when it is the newest, and `index.json`.
///
/// Databases are built in the mirror's scratch folder; archives are written aside in
/// the bundles folder and linked into place (``BundlesFolder``), so an interrupted or
/// failed export leaves no half-written bundle or index behind.
package struct BundleExporter {
    package let store: Store
    package let folder: BundlesFolder

    package init(store: Store, folder: BundlesFolder) {
        self.store = store
        self.folder = folder
    }

    /// What one export did.
    package struct Result: Sendable {
        package var version: Int
        package var full: PublishedFile
        package var deltas: [PublishedFile] = []
        /// Deltas not written because they were not smaller than the full bundle.
        package var skippedDeltas: [Int] = []
        /// Deltas not written because their base version cannot be built any more (its
        /// sprites were never mirrored with this profile's set, a dangling reference): a
        /// device at that version takes the full bundle instead.
        package var failedDeltas: [FailedDelta] = []
        /// False when the version is not the newest: the index is left as it is.
        package var indexWritten = false
        package var removed: [String] = []
        /// Damaged files moved aside (`--replace-damaged`), one line each.
        package var movedAside: [String] = []
        /// The database built; nil when the bundle and its deltas were already there.
        package var database: DeviceDatabaseInfo?

        /// The sprites the profile asks for that the version's bundle lacks because their
        /// host failed (the manifest's `missing_sprites`): URLs, sorted.
        package var missingSprites: [String] { full.missingSprites }
        /// Whether this export wrote the version's bundle and index but left something out:
        /// missing sprites, or a delta that could not be built (exit 2). Said once, by the
        /// export that writes the bundle: the nights after keep that bundle and retry the
        /// delta quietly, so a quiet night stays quiet (exit 0) while the gap lasts.
        package var isIncomplete: Bool { full.isNew && (!missingSprites.isEmpty || !failedDeltas.isEmpty) }
    }

    /// A delta that was not written because its base version cannot be built.
    package struct FailedDelta: Sendable {
        package var base: Int
        /// Why, as the error says it.
        package var failure: any PokeSyncError
    }

    /// Exports `version` (the newest when nil) with `profile`.
    /// - Parameter replaceDamaged: a damaged file already in the folder under a name this
    ///   export writes is moved aside and written afresh, instead of refused.
    /// Sprites the version's set selects but never held (their host failed) are left out
    /// and named (``Result/missingSprites``); an older version that cannot be built costs
    /// only its delta (``Result/failedDeltas``).
    /// - Throws: `RequestError` (64) for an unknown version, a language the version lacks,
    ///   sprites it was never mirrored with, a folder that is not pokesync's;
    ///   `ExportError.deviceData` (65) for a dangling reference; ``ExportError/damagedBundle(file:problem:)`` (65) for a
    ///   damaged file; `LocalFileError` (74) when the folder cannot be written;
    ///   ``ExportError/noBundleForKinds(version:kinds:lacking:)`` when the version's kinds cannot make a bundle.
    package func export(version asked: Int?, profile: BundleProfile, graceHours: Double, replaceDamaged: Bool = false,
                       log: (String) -> Void = { _ in }) throws -> Result {
        let versions = try store.versions()
        let number = try Store.resolveVersion(asked, among: versions.map(\.number))
        // Resolved among `versions`, so both exist.
        let (record, newest) = (versions.first { $0.number == number }!, versions[versions.count - 1])
        let lineage = try store.lineage()
        _ = try profile.spriteSet()
        let heldKinds = try kinds(of: number)
        let lacking = ReferenceCheck.kindsLacking(for: heldKinds)
        guard lacking.isEmpty else { throw ExportError.noBundleForKinds(version: number, kinds: heldKinds, lacking: lacking) }
        try store.checkLanguagesExist(profile, version: number)
        try folder.prepare(lineage: lineage)

        Self.removeDeadScratch(in: store.layout.scratchFolder)
        let scratch = store.layout.scratchFolder.appendingPathComponent("export-\(getpid())")
        try? FileManager.default.removeItem(at: scratch)
        try FileSystem.createDirectory(scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let isNewest = number == newest.number
        // No device holds a version whose kinds made no bundle: no delta from it.
        let bases = isNewest ? try versions.filter {
            try $0.number < number && ReferenceCheck.kindsLacking(for: kinds(of: $0.number)).isEmpty
        } : []
        // What the folder already holds of this version, read once and checked whole: kept
        // as it is only when sound, what its name says, of this lineage and this profile.
        var existing: [String: PublishedFile] = [:]
        var movedAside: [String] = []
        let checked = folder.checkedFiles()
        let wanted = [(BundlesFolder.fullName(version: number), nil)]
            + bases.map { (BundlesFolder.deltaName(from: $0.number, to: number), Optional($0.number)) }
        for (name, base) in wanted {
            existing[name] = try checkedExisting(name, version: number, base: base, lineage: lineage, profile: profile,
                                                 replaceDamaged: replaceDamaged, checked: checked,
                                                 scratch: scratch, movedAside: &movedAside)
        }
        let fullName = BundlesFolder.fullName(version: number)
        let missingDeltas = bases.filter { existing[BundlesFolder.deltaName(from: $0.number, to: number)] == nil }

        // The newest version's bundle and deltas already there (the nightly case): nothing
        // to build. A re-export would give the same bytes, and published files never change.
        var built: BuiltDatabase?
        if existing[fullName] == nil || !missingDeltas.isEmpty {
            built = try buildDatabase(record, profile: profile, lineage: lineage, in: scratch)
            log("built the database of version \(number)")
        }
        let full = try existing[fullName] ?? writeFull(built!, record: record, profile: profile, lineage: lineage)
        var result = Result(version: number, full: full, database: built?.info)
        result.movedAside = movedAside

        guard isNewest else { return result }
        var deltaEntries: [BundleIndex.Entry] = []
        for base in bases {
            let name = BundlesFolder.deltaName(from: base.number, to: number)
            var delta = existing[name]
            if delta == nil, let built {
                // An old version that cannot be built (a bad night's data, a sprite set it was
                // never mirrored with) costs its devices a delta, never the newest bundle.
                do {
                    delta = try buildDelta(from: base, to: built, record: record, profile: profile, lineage: lineage,
                                           fullSize: full.size, scratch: scratch)
                } catch let failure as any PokeSyncError where [.usage, .dataError].contains(failure.exitStatus) {
                    result.failedDeltas.append(FailedDelta(base: base.number, failure: failure))
                    continue
                }
            }
            guard let delta else { result.skippedDeltas.append(base.number); continue }
            result.deltas.append(delta)
            deltaEntries.append(BundleIndex.Entry(from: base.number, to: number, file: delta.name, size: delta.size,
                                                  unpackedSize: delta.unpackedSize, sha256: delta.sha256))
        }
        let index = BundleIndex(lineage: lineage, profile: profile,
                                full: BundleIndex.Entry(to: number, file: full.name, size: full.size,
                                                        unpackedSize: full.unpackedSize, sha256: full.sha256),
                                deltas: deltaEntries)
        try folder.recordChecked([full] + result.deltas)
        try folder.writeIndex(index)
        result.indexWritten = true
        result.removed = try folder.sweep(keeping: Set(index.files), graceHours: graceHours)
        return result
    }

    /// The kinds version `number` holds (a version made before kinds were data holds the default ones).
    private func kinds(of number: Int) throws -> [ResourceKind] {
        try store.versionKinds(number)?.resolved ?? ResourceKind.defaultKinds
    }

    /// Removes the scratch folders of exports that were killed (`export-PID` whose process
    /// is gone): each holds a database or two, tens of MB.
    static func removeDeadScratch(in folder: URL) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix("export-") {
            guard let pid = Int32(name.dropFirst("export-".count)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// A file already published under a name this export would write must be of the same
    /// lineage and profile: names carry only versions, and a device trusts the index's
    /// profile for every file it names.
    /// - Throws: `RequestError` (64) naming the file, what it holds and what to do.
    static func checkSameLine(_ file: PublishedFile, lineage: String, profile: BundleProfile, folder: BundlesFolder) throws {
        if let other = file.lineage, other != lineage {
            throw RequestError.bundleOfAnotherLineage(path: folder.url(file.name).path, lineage: String(other.prefix(8)))
        }
        if let other = file.profile, other != profile {
            throw RequestError.bundleOfAnotherProfile(path: folder.url(file.name).path, profile: other.json, wanted: profile.json)
        }
    }

    /// A device database built for one version.
    struct BuiltDatabase {
        var file: URL
        var info: DeviceDatabaseInfo
        /// Sprites the profile asks for that the version lacks because their host failed
        /// (URLs, sorted): the manifest's `missing_sprites`.
        var missingSprites: [String] = []
    }

    /// Builds version `record`'s database in `scratch`.
    ///
    /// A sprite the profile asks for and the version does not hold is one of three: upstream
    /// lacks it or pokesync refused it (reported at crawl time, left out as always); the
    /// version's sprite set selects it but its host failed (never held, or given up): left
    /// out and named in ``BuiltDatabase/missingSprites``, for a later version to bring; or
    /// the version was never mirrored with a set that selects it, the operator's mistake.
    /// - Throws: `RequestError` (64) for the last.
    func buildDatabase(_ record: VersionRecord, profile: BundleProfile, lineage: String,
                       in scratch: URL) throws -> BuiltDatabase {
        let file = scratch.appendingPathComponent("pokedex-\(record.number).sqlite")
        try? FileManager.default.removeItem(at: file)
        let info = try DeviceDatabaseBuilder(store: store).build(version: record.number, lineage: lineage,
                                                                 profile: profile, into: file)
        let reported = Set(try store.spriteReports(version: record.number).map(\.url))
        let lacking = info.unheldSprites.filter { !reported.contains($0.url) }
        // A set this build did not write (a store edited by hand) selects nothing: the sprites are not its.
        let mirrored = (try? SpriteSet(parsing: record.spriteSet)) ?? .none
        let unselected = lacking.filter { !mirrored.selects($0.key) }
        if let example = unselected.first {
            try? FileManager.default.removeItem(at: file)
            throw RequestError.spritesNotHeld(version: record.number, count: Set(unselected.map(\.url)).count,
                                              set: profile.sprites, mirrored: record.spriteSet, example: example.url,
                                              configFile: store.layout.configFile.path)
        }
        return BuiltDatabase(file: file, info: info, missingSprites: Set(lacking.map(\.url)).sorted())
    }

    private func writeFull(_ built: BuiltDatabase, record: VersionRecord, profile: BundleProfile,
                           lineage: String) throws -> PublishedFile {
        let name = BundlesFolder.fullName(version: record.number)
        var entries = [BundleArchive.Entry(path: BundleManifest.databaseName, file: built.file)]
        let objects = SpriteObjects(layout: store.layout)
        entries += built.info.bundledSprites.map { BundleArchive.Entry(path: $0.path, file: objects.url(for: $0.hash)) }
        return try BundleArchive.publish(entries: entries, in: folder, as: name) { files, unpackedSize in
            BundleManifest(format: BundleManifest.fullFormat, lineage: lineage, version: record.number,
                           createdAt: record.createdAt, source: ExportedSource.describe(record.source), profile: profile,
                           contentDigest: built.info.contentDigest.hex, unpackedSize: unpackedSize, files: files,
                           missingSprites: built.missingSprites)
        }!
    }
}
