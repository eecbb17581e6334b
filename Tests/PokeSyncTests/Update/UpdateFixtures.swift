import Foundation
import PokeArchive
import PokeSQLite
import PokedexReader
@testable import PokeSyncCore

/// Device databases and bundles folders for the delta and updater tests, built from the
/// api-data samples with Tests/Support/make_update_test_db.py and wrapped in real
/// `.tar.gz` bundles by Python's tarfile.
enum UpdateFixtures {
    static let builderScript = TestPaths.support.appendingPathComponent("make_update_test_db.py")
    static let profile = BundleProfile(sprites: "default", languages: nil)

    /// One built version: its database, its sprite folder (holding `sprites/...`) and digest.
    struct Version {
        var number: Int
        var database: URL
        var spriteRoot: URL
        var digest: String
        var createdAt: String
    }

    /// Runs a command and fails with its stderr when it exits non-zero.
    static func run(_ executable: String, _ arguments: [String]) async throws {
        let result = try await runProgram(executable, arguments)
        guard result.status == 0 else {
            throw FixtureError("\(executable) \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }

    /// Builds version `number` from `sample` into `folder/vN/`, then lets `edit` change it
    /// (SQL on the open database) before the digest is computed and stored in meta.
    static func makeVersion(_ number: Int, from sample: URL, in folder: URL, lineage: String = "lineage-a",
                            edit: (Database) throws -> Void = { _ in }) async throws -> Version {
        let root = folder.appendingPathComponent("v\(number)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let database = root.appendingPathComponent("pokedex.sqlite")
        try await run("python3", [builderScript.path, sample.path, database.path, "--version", String(number),
                            "--lineage", lineage, "--sprites-out", root.path, "--schema-version", String(DeviceSchema.version)])
        let db = try Database(path: database.path)
        try edit(db)
        let digest = try ContentDigest.compute(db).hex
        try db.run("UPDATE meta SET value = ? WHERE key = 'content_digest'", [.text(digest)])
        try db.execute("VACUUM")
        let createdAt = try db.row("SELECT value FROM meta WHERE key = 'created_at'") { $0.text(0) } ?? ""
        return Version(number: number, database: database, spriteRoot: root, digest: digest, createdAt: createdAt)
    }

    /// Bundle path -> hex SHA-256 of every sprite file under `version.spriteRoot/sprites`.
    static func spriteHashes(_ version: Version) throws -> [String: String] {
        var hashes: [String: String] = [:]
        let base = version.spriteRoot.appendingPathComponent("sprites")
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [:] }
        for case let relative as String in walker {
            let url = base.appendingPathComponent(relative)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                hashes["sprites/" + relative] = SHA256.hash(try Data(contentsOf: url)).hex
            }
        }
        return hashes
    }

    /// The delta manifest for `base` -> `target` (files filled in by ``writeArchive``).
    static func manifest(for target: Version, base: Version?, lineage: String = "lineage-a",
                         digest: String? = nil, removedSprites: [String]? = nil) -> BundleManifest {
        BundleManifest(format: base == nil ? BundleManifest.fullFormat : BundleManifest.deltaFormat,
                       lineage: lineage, version: target.number, baseVersion: base?.number,
                       createdAt: target.createdAt, source: "test-sample", profile: profile,
                       contentDigest: digest ?? target.digest, unpackedSize: 0, files: [],
                       removedSprites: base == nil ? nil : (removedSprites ?? []))
    }

    /// Writes `archive` (a `.tar.gz`) holding manifest.json first, then `files`
    /// (archive path -> source file), with the manifest's files, sizes and
    /// unpacked_size filled in. Returns the index entry for it.
    @discardableResult
    static func writeArchive(_ archive: URL, manifest: BundleManifest, files: [String: URL]) async throws -> BundleIndex.Entry {
        var manifest = manifest
        manifest.files = try files.keys.sorted().map { path in
            let data = try Data(contentsOf: files[path]!)
            return BundleManifest.File(path: path, size: data.count, sha256: SHA256.hash(data).hex)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // unpacked_size counts the manifest too, whose own text holds the number: settle it.
        var manifestData = Data()
        for _ in 0..<3 {
            manifestData = try encoder.encode(manifest)
            manifest.unpackedSize = manifest.files.reduce(manifestData.count) { $0 + $1.size }
        }
        manifestData = try encoder.encode(manifest)
        let staging = archive.deletingLastPathComponent().appendingPathComponent(".staging-\(UUID().uuidString).json")
        try manifestData.write(to: staging)
        defer { try? FileManager.default.removeItem(at: staging) }
        var entries = [["manifest.json", staging.path]]
        entries += files.keys.sorted().map { [$0, files[$0]!.path] }
        let list = String(decoding: try JSONSerialization.data(withJSONObject: entries), as: UTF8.self)
        let script = """
            import json, sys, tarfile
            entries = json.loads(sys.argv[2])
            with tarfile.open(sys.argv[1], "w:gz", format=tarfile.USTAR_FORMAT) as tar:
                for name, source in entries:
                    info = tar.gettarinfo(source, arcname=name)
                    info.mtime = 0; info.uid = info.gid = 0; info.uname = info.gname = ""; info.mode = 0o644
                    with open(source, "rb") as f:
                        tar.addfile(info, f)
            """
        try await run("python3", ["-c", script, archive.path, list])
        let bytes = try Data(contentsOf: archive)
        return BundleIndex.Entry(from: manifest.baseVersion, to: manifest.version, file: archive.lastPathComponent,
                                 size: bytes.count, unpackedSize: manifest.unpackedSize, sha256: SHA256.hash(bytes).hex)
    }

    /// Writes the full bundle of `version` into `bundles`.
    static func writeFullBundle(_ version: Version, into bundles: URL) async throws -> BundleIndex.Entry {
        var files = ["pokedex.sqlite": version.database]
        for path in try spriteHashes(version).keys { files[path] = version.spriteRoot.appendingPathComponent(path) }
        return try await writeArchive(bundles.appendingPathComponent("pokedex-\(version.number).tar.gz"),
                                manifest: manifest(for: version, base: nil), files: files)
    }

    /// Builds and writes the delta `base` -> `target` into `bundles`.
    static func writeDelta(from base: Version, to target: Version, into bundles: URL,
                           digest: String? = nil) async throws -> BundleIndex.Entry {
        let work = bundles.appendingPathComponent(".work-\(base.number)-\(target.number)", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let changes = work.appendingPathComponent("changes.sqlite")
        let summary = try DeltaBuilder(old: base.database, new: target.database)
            .write(to: changes, oldSpriteHashes: try spriteHashes(base), newSpriteHashes: try spriteHashes(target))
        var files = ["changes.sqlite": changes]
        for path in summary.sprites.included { files[path] = target.spriteRoot.appendingPathComponent(path) }
        return try await writeArchive(bundles.appendingPathComponent("pokedex-\(base.number)-\(target.number).delta.tar.gz"),
                                manifest: manifest(for: target, base: base, digest: digest,
                                                   removedSprites: summary.sprites.removed),
                                files: files)
    }

    /// Writes `index.json` into `bundles`.
    static func writeIndex(_ bundles: URL, full: BundleIndex.Entry, deltas: [BundleIndex.Entry],
                           lineage: String = "lineage-a", schemaVersion: Int = DeviceSchema.version) throws {
        let index = BundleIndex(schemaVersion: schemaVersion, lineage: lineage, profile: profile, full: full, deltas: deltas)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(index).write(to: bundles.appendingPathComponent("index.json"))
    }

    /// Every row of every schema table (all listed columns, in key order), as text lines.
    static func rows(_ database: URL) throws -> [String: [String]] {
        let db = try Database(path: database.path, mode: .readOnly)
        var result: [String: [String]] = [:]
        for table in DeviceSchema.tables {
            let columns = table.columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
            let order = table.columns.map { "\"\($0)\"" }.joined(separator: ", ")
            result[table.name] = try db.rows("SELECT \(columns) FROM \"\(table.name)\" ORDER BY \(order)") { $0.text(0) }
        }
        return result
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
