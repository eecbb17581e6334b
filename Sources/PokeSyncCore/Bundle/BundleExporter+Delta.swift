import Foundation
import PokeArchive
import PokedexReader

extension BundleExporter {
    /// Writes `pokedex-M-N.delta.tar.gz` from `old` (version M) to `new`: `changes.sqlite`
    /// and the added or changed sprites, removed sprites listed in the manifest. Returns
    /// nil, writing nothing, when the delta would not be smaller than the full bundle.
    func writeDelta(from old: BuiltDatabase, to new: BuiltDatabase, record: VersionRecord, profile: BundleProfile,
                    lineage: String, fullSize: Int, scratch: URL) throws -> PublishedFile? {
        let changes = scratch.appendingPathComponent("changes-\(old.info.version)-\(record.number).sqlite")
        try? FileManager.default.removeItem(at: changes)
        defer { try? FileManager.default.removeItem(at: changes) }
        try DeltaBuilder(old: old.file, new: new.file).write(to: changes)

        let oldSprites = Dictionary(uniqueKeysWithValues: old.info.bundledSprites.map { ($0.path, $0.hash) })
        let newSprites = new.info.bundledSprites
        let changed = newSprites.filter { oldSprites[$0.path] != $0.hash }
        let kept = Set(newSprites.map(\.path))
        let removed = oldSprites.keys.filter { !kept.contains($0) }.sorted()

        let objects = SpriteObjects(layout: store.layout)
        var entries = [BundleArchive.Entry(path: BundleManifest.deltaDatabaseName, file: changes)]
        entries += changed.map { BundleArchive.Entry(path: $0.path, file: objects.url(for: $0.hash)) }
        let name = BundlesFolder.deltaName(from: old.info.version, to: record.number)
        return try BundleArchive.publish(entries: entries, in: folder, as: name, unlessAtLeast: fullSize) { files, unpackedSize in
            BundleManifest(format: BundleManifest.deltaFormat, lineage: lineage, version: record.number,
                           baseVersion: old.info.version, createdAt: record.createdAt,
                           source: ExportedSource.describe(record.source),
                           profile: profile, contentDigest: new.info.contentDigest.hex, unpackedSize: unpackedSize,
                           files: files, removedSprites: removed, missingSprites: new.missingSprites)
        }
    }

    /// Builds version `base` again (as devices at it hold it) and writes the delta from it
    /// to `built`; nil when the delta would not be smaller than the full bundle.
    /// - Throws: what building `base` throws: `RequestError` (64) for sprites it was never
    ///   mirrored with, ``ExportError/deviceData(_:)`` (65) for a dangling reference.
    func buildDelta(from base: VersionRecord, to built: BuiltDatabase, record: VersionRecord, profile: BundleProfile,
                    lineage: String, fullSize: Int, scratch: URL) throws -> PublishedFile? {
        let rebuilt = try buildDatabase(base, profile: profile, lineage: lineage, in: scratch)
        let old = deviceBase(rebuilt, lineage: lineage, profile: profile, scratch: scratch)
        defer {
            try? FileManager.default.removeItem(at: rebuilt.file)
            if old.file != rebuilt.file { try? FileManager.default.removeItem(at: old.file.deletingLastPathComponent()) }
        }
        return try writeDelta(from: old, to: built, record: record, profile: profile, lineage: lineage,
                              fullSize: fullSize, scratch: scratch)
    }
}
