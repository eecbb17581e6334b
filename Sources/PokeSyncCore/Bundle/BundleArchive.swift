import Foundation
import PokeArchive
import PokedexReader

/// Writes a bundle or delta archive: a deterministic `.tar.gz` (entries sorted by name,
/// fixed metadata, gzip with no name or time) holding `manifest.json` and the given
/// files, published into a ``BundlesFolder`` under its final name.
enum BundleArchive {
    /// One file of the archive, read from disk.
    struct Entry {
        /// The name in the archive: `pokedex.sqlite`, `sprites/pokemon/25.png`.
        var path: String
        var file: URL
    }

    /// The deflate level of bundles and deltas (part of what makes exports reproducible).
    static let compressionLevel: Int32 = 6

    /// The caps for reading back an archive pokesync wrote itself.
    static let ownLimits = TarLimits(maxUnpackedBytes: 1 << 40, maxEntryCount: 2_000_000, maxCompressedBytes: 1 << 40)
    /// A manifest is small; a larger one is not ours.
    static let maxManifestBytes = 16 << 20

    /// Writes the archive aside and publishes it as `name`, unless a file of that name is
    /// there (it is kept), or the archive comes out at least `sizeCap` bytes (a delta no
    /// smaller than the full bundle: nothing is published, nil is returned).
    /// - Parameter manifest: makes the manifest from the files' facts and the unpacked size.
    static func publish(entries: [Entry], in folder: BundlesFolder, as name: String, unlessAtLeast sizeCap: Int? = nil,
                        manifest: ([BundleManifest.File], Int) throws -> BundleManifest) throws -> PublishedFile? {
        if let existing = try folder.existing(name) { return existing }
        var files: [BundleManifest.File] = []
        for entry in entries {
            let (size, digest) = try FileSystem.hash(entry.file)
            files.append(BundleManifest.File(path: entry.path, size: size, sha256: digest.hex))
        }
        // unpacked_size counts the manifest too, whose size depends on the number written in
        // it: a few rounds reach the fixed point.
        let contentBytes = files.reduce(0) { $0 + $1.size }
        var unpackedSize = contentBytes
        var written = try manifest(files, unpackedSize)
        var manifestBytes = try BundleJSON.encode(written)
        for _ in 0..<3 where contentBytes + manifestBytes.count != unpackedSize {
            unpackedSize = contentBytes + manifestBytes.count
            written = try manifest(files, unpackedSize)
            manifestBytes = try BundleJSON.encode(written)
        }

        let scratch = folder.scratchFile(for: name)
        defer { unlink(scratch.path) }
        do {
            // Level 6: on the full database, level 9 takes 2.7 times as long for 0.7% less.
            let writer = try TarWriter(path: scratch.path, level: Self.compressionLevel)
            var sources: [(name: [UInt8], entry: Entry?)] = entries.map { (Array($0.path.utf8), $0) }
            sources.append((Array(BundleManifest.fileName.utf8), nil))
            sources.sort { $0.name.lexicographicallyPrecedes($1.name) }
            for source in sources {
                if let entry = source.entry {
                    try writer.addFile(entry.path, contentsOfFile: entry.file.path)
                } else {
                    try writer.addFile(BundleManifest.fileName, contents: manifestBytes)
                }
            }
            try writer.finish()
        }
        if let sizeCap, FileSystem.size(of: scratch) ?? 0 >= sizeCap { return nil }
        var published = try folder.publish(scratch, as: name)
        // A file of that name that appeared meanwhile is kept: its own manifest describes it.
        published.take(published.isNew ? written : try readManifest(folder.url(name)))
        return published
    }

    /// The manifest of an archive in the folder (the whole archive is read and checked).
    /// - Throws: `TarError` for a damaged archive; `ExportError.bundleFormat` for a bad manifest.
    static func readManifest(_ url: URL) throws -> BundleManifest {
        let bytes = try TarArchive(path: url.path, limits: ownLimits).contents(of: BundleManifest.fileName, maxBytes: maxManifestBytes)
        do { return try JSONDecoder().decode(BundleManifest.self, from: Data(bytes)) } catch {
            throw ExportError.bundleFormat(file: url.path, reason: "manifest.json does not decode: \(error)")
        }
    }
}
