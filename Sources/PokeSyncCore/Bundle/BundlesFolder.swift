import Foundation
import PokeArchive
import PokedexReader

/// The bundles folder (`Mirror/bundles/` or `--out`), updated in place, carefully:
///
/// - a bundle or delta is written aside and linked into place under its final name,
///   which fails rather than replaces when the name exists: a published file never
///   changes (CDNs cache them forever), even when a re-export gives other bytes;
/// - `index.json` is replaced last, atomically, and only for the newest version;
/// - a file the index stops naming is removed only after a grace period, since CDNs
///   serve cached indexes for a while. When a file stopped being named is recorded in
///   `.pokesync-retired.json`, pokesync's own bookkeeping (dot-files are not for upload).
package struct BundlesFolder: Sendable {
    package static let indexName = "index.json"
    static let retiredName = ".pokesync-retired.json"

    package let root: URL

    package init(root: URL) { self.root = root.standardizedFileURL }

    package func url(_ name: String) -> URL { root.appendingPathComponent(name) }

    /// A unique scratch path inside the folder (same file system, so it links into place).
    package func scratchFile(for name: String) -> URL {
        url(".\(name).partial-\(getpid())-\(UUID().uuidString.prefix(8))")
    }

    /// Publishes `scratch` as `name` unless `name` already exists, in which case the file
    /// that is there is kept and `scratch` removed. Returns the published file's facts.
    /// - Throws: `LocalFileError` (74) when linking or reading fails.
    package func publish(_ scratch: URL, as name: String) throws -> PublishedFile {
        let target = url(name)
        defer { unlink(scratch.path) }
        FileSystem.sync(file: scratch)
        if link(scratch.path, target.path) != 0 {
            guard errno == EEXIST else { throw LocalFileError(path: target.path, errno: errno) }
            return try PublishedFile(existing: target, name: name, new: false)
        }
        FileSystem.sync(file: root)
        return try PublishedFile(existing: target, name: name, new: true)
    }

    /// The facts of a file already in the folder (its manifest read back for the unpacked
    /// size), or nil when it is not there.
    /// - Throws: `TarError` or `ExportError.bundleFormat` (65) when the file is damaged.
    package func existing(_ name: String) throws -> PublishedFile? {
        guard FileManager.default.fileExists(atPath: url(name).path) else { return nil }
        var file = try PublishedFile(existing: url(name), name: name, new: false)
        file.take(try BundleArchive.readManifest(url(name)))
        return file
    }

    /// The index the folder holds now, or nil when there is none (or it is not a sound index:
    /// it is replaced by the next export of the newest version).
    package func currentIndex() -> BundleIndex? {
        guard let data = FileManager.default.contents(atPath: url(Self.indexName).path) else { return nil }
        // The reader library's loader: an index a device would refuse is no index here either.
        return try? BundleIndex(validating: data, source: url(Self.indexName).path)
    }

    /// Replaces `index.json` atomically: written aside, flushed, renamed.
    package func writeIndex(_ index: BundleIndex) throws {
        try replace(Self.indexName, with: try BundleJSON.encode(index), durably: true)
    }

    /// Writes `bytes` aside (a dot-name the sweep recognizes), then renames them over `name`;
    /// `durably` flushes the file and the folder around the rename.
    private func replace(_ name: String, with bytes: [UInt8], durably: Bool) throws {
        let scratch = scratchFile(for: name)
        try FileSystem.writeFile(bytes, to: scratch)
        if durably { FileSystem.sync(file: scratch) }
        guard rename(scratch.path, url(name).path) == 0 else {
            let code = errno
            unlink(scratch.path)
            throw LocalFileError(path: url(name).path, errno: code)
        }
        if durably { FileSystem.sync(file: root) }
    }

    /// Removes bundle files the index no longer names once they have been unnamed for
    /// `graceHours`, and scratch files left by an interrupted export. Returns what it removed.
    @discardableResult
    package func sweep(keeping named: Set<String>, graceHours: Double, now: Date = Date()) throws -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        var retired = readRetired()
        var removed: [String] = []
        for entry in entries.sorted() {
            if entry.hasPrefix("."), entry.contains(".partial-") {
                // A scratch file of an export that died; a live export's own has its pid.
                if let pid = Self.scratchOwner(entry), pid != getpid(), kill(pid, 0) != 0 { unlink(url(entry).path) }
                continue
            }
            guard Self.isBundleFile(entry), !named.contains(entry) else { retired[entry] = nil; continue }
            guard let since = retired[entry] else { retired[entry] = now; continue }
            if now.timeIntervalSince(since) >= graceHours * 3600 {
                if unlink(url(entry).path) == 0 || errno == ENOENT { removed.append(entry) }
                retired[entry] = nil
            }
        }
        for name in retired.keys where !entries.contains(name) { retired[name] = nil }
        try writeRetired(retired)
        return removed
    }

    /// `pokedex-7.tar.gz` and `pokedex-6-7.delta.tar.gz`: the names export writes.
    package static func isBundleFile(_ name: String) -> Bool {
        name.hasPrefix("pokedex-") && name.hasSuffix(".tar.gz") && !name.contains("/")
    }

    package static func fullName(version: Int) -> String { "pokedex-\(version).tar.gz" }
    package static func deltaName(from base: Int, to version: Int) -> String { "pokedex-\(base)-\(version).delta.tar.gz" }

    static func scratchOwner(_ name: String) -> Int32? {
        guard let range = name.range(of: ".partial-") else { return nil }
        return Int32(name[range.upperBound...].prefix { $0.isNumber })
    }

    private func readRetired() -> [String: Date] {
        guard let data = FileManager.default.contents(atPath: url(Self.retiredName).path),
              let dates = try? JSONDecoder().decode([String: String].self, from: data) else { return [:] }
        let formatter = ISO8601DateFormatter()
        return dates.compactMapValues { formatter.date(from: $0) }
    }

    private func writeRetired(_ retired: [String: Date]) throws {
        let formatter = ISO8601DateFormatter()
        if retired.isEmpty { unlink(url(Self.retiredName).path); return }
        // Bookkeeping, not for devices: a power cut at worst restarts a grace period.
        try replace(Self.retiredName, with: try BundleJSON.encode(retired.mapValues { formatter.string(from: $0) }), durably: false)
    }
}

/// A bundle or delta in the folder: what the index says of it.
package struct PublishedFile: Sendable, Equatable {
    package var name: String
    package var size: Int
    package var sha256: String
    /// What the archive unpacks to (its manifest's `unpacked_size`).
    package var unpackedSize = 0
    /// The lineage and profile its manifest names (read back for a file already there).
    package var lineage: String?
    package var profile: BundleProfile?
    /// The sprites its manifest says the installed database has no file for (`missing_sprites`).
    package var missingSprites: [String] = []
    /// False when the file was already there and kept.
    package var isNew: Bool

    init(existing url: URL, name: String, new: Bool) throws {
        self.name = name
        isNew = new
        let (size, digest) = try FileSystem.hash(url)
        (self.size, sha256) = (size, digest.hex)
    }

    /// Takes what the file's manifest says of it: the unpacked size, lineage, profile and
    /// missing sprites.
    mutating func take(_ manifest: BundleManifest) {
        (unpackedSize, lineage, profile) = (manifest.unpackedSize, manifest.lineage, manifest.profile)
        missingSprites = manifest.missingSprites ?? []
    }
}

