import Foundation
import PokeArchive

/// `manifest.json`, the first entry of every full bundle and delta: what it holds and
/// what the database must look like once it is installed.
package struct BundleManifest: Codable, Sendable, Equatable {
    package static let fullFormat = "pokesync-bundle"
    package static let deltaFormat = "pokesync-delta"
    package static let currentFormatVersion = 1

    /// One file of the bundle other than the manifest.
    package struct File: Codable, Sendable, Equatable {
        /// The path inside the archive: `pokedex.sqlite`, `sprites/pokemon/25.png`.
        package var path: String
        package var size: Int
        /// Lowercase hex SHA-256 of the file's bytes.
        package var sha256: String

        package init(path: String, size: Int, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    /// ``fullFormat`` or ``deltaFormat``.
    package var format: String
    package var formatVersion: Int
    /// The device schema's version (``DeviceSchema/version``): a reader refuses a newer major.
    package var schemaVersion: Int
    /// The mirror's random id: versions compare only within one lineage.
    package var lineage: String
    package var version: Int
    /// The version a delta applies to; nil for a full bundle.
    package var baseVersion: Int?
    /// When the version was published (ISO 8601, UTC): not the export's time.
    package var createdAt: String
    package var source: String
    package var profile: BundleProfile
    /// ``ContentDigest`` of the database once this bundle is installed (hex).
    package var contentDigest: String
    /// The bytes the archive unpacks to: every entry's size, the manifest included.
    package var unpackedSize: Int
    package var files: [File]
    /// Sprite paths a delta removes (`sprites/pokemon/10263.png`); nil for a full bundle.
    package var removedSprites: [String]?
    /// The upstream URLs (as `pokemon_sprite.url` spells them) of sprites the profile asks
    /// for that the installed database has no file for, because the mirror could not fetch
    /// them yet (their host failed): their rows have a NULL `path`, and a later bundle or
    /// delta brings them. Sorted; nil (absent) when there are none, and in every bundle
    /// written before the field existed.
    package var missingSprites: [String]?

    enum CodingKeys: String, CodingKey {
        case format, formatVersion = "format_version", schemaVersion = "schema_version", lineage, version
        case baseVersion = "base_version", createdAt = "created_at", source, profile
        case contentDigest = "content_digest", unpackedSize = "unpacked_size", files
        case removedSprites = "removed_sprites", missingSprites = "missing_sprites"
    }

    package init(format: String, schemaVersion: Int = DeviceSchema.version, lineage: String, version: Int,
                baseVersion: Int? = nil, createdAt: String, source: String, profile: BundleProfile,
                contentDigest: String, unpackedSize: Int, files: [File], removedSprites: [String]? = nil,
                missingSprites: [String]? = nil) {
        self.format = format
        self.formatVersion = Self.currentFormatVersion
        self.schemaVersion = schemaVersion
        self.lineage = lineage
        self.version = version
        self.baseVersion = baseVersion
        self.createdAt = createdAt
        self.source = source
        self.profile = profile
        self.contentDigest = contentDigest
        self.unpackedSize = unpackedSize
        self.files = files
        self.removedSprites = removedSprites
        self.missingSprites = missingSprites?.isEmpty == true ? nil : missingSprites
    }

    /// A full bundle's database, as its archive and a device folder name it: the one
    /// spelling of the name every reader and writer uses.
    package static let databaseName = "pokedex.sqlite"
    /// A delta's database.
    package static let deltaDatabaseName = "changes.sqlite"
    /// The manifest itself, first in every bundle's archive and kept in a device folder.
    package static let fileName = "manifest.json"

    package var isDelta: Bool { format == Self.deltaFormat }

    /// Why the manifest's list of files is not one a bundle may have, or nil: a full
    /// bundle holds `pokedex.sqlite`, a delta `changes.sqlite`, and both only sprites
    /// besides (a `-wal` or anything else would be read one way and verified another).
    package var fileListProblem: String? {
        let database = isDelta ? Self.deltaDatabaseName : Self.databaseName
        guard files.contains(where: { $0.path == database }) else { return "lists no \(database)" }
        if let odd = files.first(where: { $0.path != database && !$0.path.hasPrefix("sprites/") }) {
            return "lists \(odd.path), which a \(isDelta ? "delta" : "bundle") never holds"
        }
        return nil
    }

    /// Why the files extracted into `folder` are not this manifest's, or nil: besides
    /// `manifest.json`, `names` (what the archive held) must be exactly the listed files,
    /// each with its listed size and SHA-256. The updater and `verify` both ask this.
    package func mismatch(inExtracted folder: URL, holding names: [String]) -> String? {
        let listed = Set(files.map(\.path))
        let present = Set(names).subtracting([Self.fileName])
        guard listed == present else {
            let odd = present.symmetricDifference(listed).sorted().prefix(3).joined(separator: ", ")
            return "holds files its manifest does not list, or lacks some it lists (\(odd))"
        }
        for file in files {
            guard let (size, digest) = SHA256.hashFile(atPath: folder.appendingPathComponent(file.path).path),
                  size == file.size, digest.hex == file.sha256.lowercased() else {
                return "holds \(file.path) that is not the one its manifest lists (size or SHA-256)"
            }
        }
        return nil
    }

    /// Whether the SQLite file at `path` is in rollback-journal mode (header bytes 18 and
    /// 19 are 1; 2 means WAL, which a read-only device database must never be).
    package static func isRollbackJournal(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[header.startIndex + 18] == 1 && header[header.startIndex + 19] == 1
    }
}
