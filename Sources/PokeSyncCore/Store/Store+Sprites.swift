import Foundation
import PokeArchive
import PokeSQLite

/// A sprite URL as a document names it: its JSON path under `sprites` and the URL.
package struct SpriteReference: Sendable, Hashable {
    /// e.g. "front_default", "other/official-artwork/front_default".
    package var key: String
    package var url: String

    package init(key: String, url: String) {
        self.key = key
        self.url = url
    }

    /// "key<TAB>url" lines: small and quick to read back for a 304'd document.
    static func encode(_ references: [SpriteReference]) -> [UInt8] {
        Array(references.map { "\($0.key)\t\($0.url)\n" }.joined().utf8)
    }

    static func decode(_ bytes: [UInt8]) -> [SpriteReference] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let tab = line.firstIndex(of: "\t") else { return nil }
            return SpriteReference(key: String(line[..<tab]), url: String(line[tab...].dropFirst()))
        }
    }
}

/// Sprite jobs of the run in progress, and the sprite URLs each stored document names.
extension Store {
    /// The sprite URLs a stored document names (empty when it names none).
    /// - Throws: `CompressionError` when the stored list is damaged.
    package func spriteReferences(documentHash: SHA256Digest) throws -> [SpriteReference] {
        try linkReferences(documentHash: documentHash, tree: .sprites)
    }

    /// The links a stored document names into `tree`: its `sprites`, or its `cries`.
    /// - Throws: `CompressionError` when the stored list is damaged.
    package func linkReferences(documentHash: SHA256Digest, tree: LinkedTree) throws -> [SpriteReference] {
        let column = tree == .sprites ? "sprite_refs" : "cry_refs"
        let compressed = try read { database in
            try database.row("SELECT \(column) FROM documents WHERE hash = ?", [.blob(documentHash.bytes)]) {
                $0.optionalBlob(0)
            } ?? nil
        }
        guard let compressed else { return [] }
        do {
            return SpriteReference.decode(try Zlib.decompress(compressed))
        } catch {
            throw StoreError.corrupt(layout.display(layout.storeFile), "the \(tree.noun) list of document \(documentHash.hex): \(error)")
        }
    }

    package func spriteJobs(run: Int, states: [JobState]) throws -> [SpriteJob] {
        let placeholders = states.map { _ in "?" }.joined(separator: ",")
        return try read { database in
            try database.rows("""
                SELECT f.url, f.path, coalesce(f.document, f.name), v.etag, v.last_modified, v.hash, f.job
                FROM frontier f LEFT JOIN validators v ON v.key = f.key
                WHERE f.run = ? AND f.job IN \(LinkedTree.jobsSQL) AND f.state IN (\(placeholders))
                ORDER BY f.job DESC, f.path
                """, [SQLValue(run)] + states.map { .text($0.rawValue) }) { row in
                let validators = Validators(etag: row.optionalText(3), lastModified: row.optionalText(4))
                return SpriteJob(url: row.text(0), path: row.text(1), document: row.text(2),
                                 validators: validators.isEmpty ? nil : validators,
                                 knownHash: row.optionalBlob(5).flatMap { SHA256Digest(bytes: $0) },
                                 tree: row.text(6) == LinkedTree.cries.job ? .cries : .sprites)
            }
        }
    }

    /// Settles a sprite job. `hash` is set for `done` and `unchanged`; the object file
    /// must already be in place (written aside, then renamed). `fetched`, where its bytes
    /// were asked, names its host when its bytes are refused later (a placeholder).
    package func settleSprite(run: Int, job: SpriteJob, state: JobState, hash: SHA256Digest?, size: Int?,
                             validators: Validators?, report: SpriteReport?, fetched: String? = nil) throws {
        try write { database in
            if let hash, let size {
                try database.run("INSERT OR IGNORE INTO sprite_objects(hash, size) VALUES (?, ?)",
                                 [.blob(hash.bytes), SQLValue(size)])
            }
            if let hash, let validators, !validators.isEmpty {
                try database.run("INSERT OR REPLACE INTO validators(key, etag, last_modified, hash) VALUES (?, ?, ?, ?)",
                                 [.text(job.url), SQLValue(validators.etag), SQLValue(validators.lastModified), .blob(hash.bytes)])
            }
            try database.run("UPDATE frontier SET state = ?, hash = ?, error = NULL, fetched = coalesce(?, fetched) WHERE run = ? AND job = ? AND key = ?",
                             [.text(state.rawValue), hash.map { .blob($0.bytes) } ?? .null, SQLValue(fetched), SQLValue(run),
                              .text(job.tree.job), .text(job.url)])
            if let report {
                try Self.queueSprites(database, run: run, sprites: [], reports: [report])
            }
        }
    }

    /// The sprites of a version: tree path, upstream URL, content hash.
    package func versionSprites(_ version: Int) throws -> [(path: String, url: String, hash: SHA256Digest)] {
        try versionFiles(.sprites, version)
    }

    /// The files of a version in `tree`: tree path, upstream URL, content hash. None for
    /// cries of a store made before cries were mirrored (opened read-only, not migrated).
    package func versionFiles(_ tree: LinkedTree, _ version: Int) throws -> [(path: String, url: String, hash: SHA256Digest)] {
        try read { database in
            guard try Self.hasTable(database, tree.versionTable) else { return [] }
            return try database.rows("SELECT path, url, hash FROM \(tree.versionTable) WHERE version = ? ORDER BY path",
                                     [SQLValue(version)]) { row in
                (row.text(0), row.text(1), try storedHash(row.blob(2), row: "\(tree.versionTable) (version \(version), \(row.text(0)))"))
            }
        }
    }

    /// Whether the store has `table` (a store made by an older build, opened read-only, may not).
    static func hasTable(_ database: Database, _ table: String) throws -> Bool {
        try database.integer("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]) == 1
    }

    /// Refused or missing sprites recorded for a version (or the run in progress when nil).
    package func spriteReports(version: Int?, run: Int? = nil) throws -> [SpriteReport] {
        try read { database in
            let (condition, argument): (String, SQLValue) = version.map { ("version = ?", SQLValue($0)) }
                ?? ("run = ? AND version IS NULL", SQLValue(run ?? -1))
            return try database.rows("SELECT url, document, outcome, reason FROM sprite_reports WHERE \(condition) ORDER BY url",
                                     [argument]) { SpriteReport(url: $0.text(0), document: $0.text(1), outcome: SpriteReport.Outcome(rawValue: $0.text(2)) ?? .refused, reason: $0.text(3)) }
        }
    }
}

/// A settled sprite job with the object it stands for.
struct SettledSprite: Sendable {
    var job: SpriteJob
    var hash: SHA256Digest
    var size: Int
}

extension Store {
    /// Every sprite job of the run that names an object (fetched or unchanged), with the object's size.
    func settledSpriteObjects(run: Int) throws -> [SettledSprite] {
        try read { database in
            try database.rows("""
                SELECT f.url, f.path, coalesce(f.document, f.name), f.hash, o.size, f.job
                FROM frontier f JOIN sprite_objects o ON o.hash = f.hash
                WHERE f.run = ? AND f.job IN \(LinkedTree.jobsSQL) AND f.state IN ('done', 'unchanged')
                """, [SQLValue(run)]) { row in
                SettledSprite(job: SpriteJob(url: row.text(0), path: row.text(1), document: row.text(2),
                                             tree: row.text(5) == LinkedTree.cries.job ? .cries : .sprites),
                              hash: try storedHash(row.blob(3), row: "frontier (run \(run), sprite \(row.text(0)))"), size: row.int(4))
            }
        }
    }

    /// Puts damaged sprites back in the queue, forgetting their validators so they are fetched whole.
    func requeueSprites(run: Int, _ jobs: [SpriteJob]) throws {
        try write { database in
            for job in jobs {
                try database.run("UPDATE frontier SET state = 'pending', hash = NULL WHERE run = ? AND job = ? AND key = ?",
                                 [SQLValue(run), .text(job.tree.job), .text(job.url)])
                try database.run("DELETE FROM validators WHERE key = ?", [.text(job.url)])
            }
        }
    }
}

extension Store {
    /// Refuses sprites that cannot share the tree with another: two URLs with one path,
    /// or a path below another sprite's file (`pokemon/25.png/x.png`). Decided over the
    /// whole run in (path, URL) order, so the same sprites win however the documents
    /// were interleaved or interrupted: a file above wins over what would need a folder
    /// there, and the smaller URL wins a shared path.
    /// - Returns: the refusals made now.
    func refuseClashingSpritePaths(run: Int) throws -> [SpriteReport] {
        try LinkedTree.allCases.flatMap { try refuseClashingPaths(run: run, tree: $0) }
    }

    private func refuseClashingPaths(run: Int, tree: LinkedTree) throws -> [SpriteReport] {
        try write { database in
            let jobs = try database.rows("""
                SELECT url, path, coalesce(document, name) FROM frontier WHERE run = ? AND job = ? AND state != 'refused' ORDER BY path, url
                """, [SQLValue(run), .text(tree.job)]) { ($0.text(0), $0.text(1), $0.text(2)) }
            var winners: [String: String] = [:]  // path → URL
            var refusals: [SpriteReport] = []
            for (url, path, document) in jobs {
                let segments = path.split(separator: "/")
                let ancestor = (1..<max(1, segments.count)).lazy
                    .map { segments.prefix($0).joined(separator: "/") }.first { winners[$0] != nil }
                if let taken = ancestor ?? (winners[path] != nil ? path : nil) {
                    refusals.append(SpriteReport(url: url, document: document, outcome: .refused,
                                                 reason: "its tree path \(path) clashes with \(winners[taken]!)"))
                } else {
                    winners[path] = url
                }
            }
            for refusal in refusals {
                try database.run("UPDATE frontier SET state = 'refused', hash = NULL WHERE run = ? AND job = ? AND key = ?",
                                 [SQLValue(run), .text(tree.job), .text(refusal.url)])
            }
            try Self.queueSprites(database, run: run, sprites: [], reports: refusals)
            return refusals
        }
    }
}
