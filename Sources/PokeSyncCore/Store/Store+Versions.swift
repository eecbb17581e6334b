import Foundation
import PokeArchive
import PokeSQLite

/// A published version.
package struct VersionRecord: Sendable, Codable, Equatable {
    package var number: Int
    package var createdAt: String
    package var mode: RunMode
    package var source: String
    package var spriteSource: String?
    package var spriteSet: String
    package var deployHash: String?
    package var documents: Int
    package var sprites: Int
}

/// One document of a version.
package struct VersionDocument: Sendable, Hashable {
    package var kind: ResourceKind
    package var id: Int
    package var name: String?
    package var hash: SHA256Digest
    /// Its place in its kind's list as the source gave it; nil for documents that are in
    /// no list (encounters, meta) and in versions made before positions were kept.
    package var position: Int?
}

package enum PublishOutcome: Sendable {
    case published(VersionRecord)
    /// `sync` found nothing different from the version it started from.
    case unchanged(Int)
}

extension Store {
    static let versionColumns = "number, created_at, mode, source, sprite_source, sprite_set, deploy_hash, documents, sprites"

    static func versionRecord(_ row: Row) -> VersionRecord {
        VersionRecord(number: row.int(0), createdAt: row.text(1), mode: RunMode(rawValue: row.text(2)) ?? .full,
                      source: row.text(3), spriteSource: row.optionalText(4), spriteSet: row.text(5),
                      deployHash: row.optionalText(6), documents: row.int(7), sprites: row.int(8))
    }

    package func versions() throws -> [VersionRecord] {
        try read { database in
            try database.rows("SELECT \(Self.versionColumns) FROM versions ORDER BY number", [], Self.versionRecord)
        }
    }

    /// `asked` if the store retains it, else the latest version when `asked` is nil.
    /// - Throws: `RequestError` naming the retained versions, or saying there are none yet.
    package func resolveVersion(_ asked: Int?) throws -> Int {
        try Self.resolveVersion(asked, among: try versions().map(\.number))
    }

    /// ``resolveVersion(_:)`` against version numbers already read, in ascending order.
    package static func resolveVersion(_ asked: Int?, among numbers: [Int]) throws -> Int {
        guard let latest = numbers.last else { throw RequestError.noVersions }
        guard let asked else { return latest }
        guard numbers.contains(asked) else {
            throw RequestError.noSuchVersion(asked: asked, retained: numbers)
        }
        return asked
    }

    package func version(_ number: Int) throws -> VersionRecord? {
        try read { database in
            try database.row("SELECT \(Self.versionColumns) FROM versions WHERE number = ?", [SQLValue(number)], Self.versionRecord)
        }
    }

    package func latestVersion() throws -> VersionRecord? {
        try read { database in
            try database.row("SELECT \(Self.versionColumns) FROM versions ORDER BY number DESC LIMIT 1", [], Self.versionRecord)
        }
    }

    /// Every document of a version, in kind then id order.
    package func documents(version: Int) throws -> [VersionDocument] {
        return try read { database in
            let position = try Self.hasColumn(database, table: "version_documents", column: "position") ? "position" : "NULL"
            return try database.rows("SELECT kind, id, name, hash, \(position) FROM version_documents WHERE version = ?",
                              [SQLValue(version)]) { row in
                VersionDocument(kind: ResourceKind(rawValue: row.text(0)), id: row.int(1),
                                name: row.optionalText(2),
                                hash: try storedHash(row.blob(3), row: "version_documents (version \(version), \(row.text(0))/\(row.int(1)))"),
                                position: row.optionalInt(4))
            }
        }.sorted { ($0.kind, $0.id) < ($1.kind, $1.id) }
    }

    /// A hash column read back: 32 bytes, or the store is damaged (a crash would be worse).
    /// - Throws: `StoreError.corrupt` (65) naming the row.
    func storedHash(_ bytes: [UInt8], row: String) throws -> SHA256Digest {
        guard let digest = SHA256Digest(bytes: bytes) else {
            throw StoreError.corrupt(layout.display(layout.storeFile), "\(row) has a hash of \(bytes.count) bytes, not 32")
        }
        return digest
    }

    /// What version `number`'s `--kinds` was and resolved to (for `all`, what the source's
    /// root listed then, an endpoint that listed nothing included); nil for a version made
    /// before kinds were data (it holds the default kinds).
    package func versionKinds(_ number: Int) throws -> (selection: KindSelection, resolved: [ResourceKind])? {
        let row = try read { database -> (String, String)? in
            guard try database.integer("SELECT COUNT(*) FROM sqlite_master WHERE name = 'version_kinds'") == 1 else { return nil }
            return try database.row("SELECT selection, resolved FROM version_kinds WHERE version = ?", [SQLValue(number)]) {
                ($0.text(0), $0.text(1))
            }
        }
        guard let (selection, resolved) = row, let parsed = try? KindSelection(parsing: selection) else { return nil }
        return (parsed, Self.kindList(resolved))
    }

    /// How many documents of each kind a version holds.
    package func documentCounts(version: Int) throws -> [ResourceKind: Int] {
        try read { database in
            var counts: [ResourceKind: Int] = [:]
            for (kind, count) in try database.rows("SELECT kind, COUNT(*) FROM version_documents WHERE version = ? GROUP BY kind",
                                                   [SQLValue(version)], { ($0.text(0), $0.int(1)) }) {
                counts[ResourceKind(rawValue: kind)] = count
            }
            return counts
        }
    }

    /// The canonical JSON of a stored document.
    /// - Throws: `StoreError.corrupt` when it is missing or does not match its hash.
    package func documentBody(_ hash: SHA256Digest) throws -> [UInt8] {
        try deflatedDocument(hash).body()
    }

    /// A stored document as the store holds it, compressed: read with the store's
    /// connection, inflated and checked by ``DeflatedDocument/body()`` on any thread, so that
    /// a caller sharing the connection holds it only for the read.
    /// - Throws: `StoreError.corrupt` when it is missing.
    package func deflatedDocument(_ hash: SHA256Digest) throws -> DeflatedDocument {
        let stored = try read { database in
            try database.row("SELECT size, body FROM documents WHERE hash = ?", [.blob(hash.bytes)]) { ($0.int(0), $0.blob(1)) }
        }
        let display = layout.display(layout.storeFile)
        guard let (size, compressed) = stored else {
            throw StoreError.corrupt(display, "document \(hash.hex) is missing")
        }
        return DeflatedDocument(hash: hash, size: size, compressed: compressed, storeDisplay: display)
    }

    /// True when the document of `hash` is stored and its body matches the hash.
    package func isDocumentSound(_ hash: SHA256Digest) -> Bool {
        (try? documentBody(hash)) != nil
    }

    /// Publishes the run as the next version, atomically: the version, its documents
    /// and sprites appear in one commit, and the frontier goes in the same commit.
    /// With `skipIfUnchanged`, a run whose documents and sprites equal its base
    /// version's publishes nothing. A run whose lists lost more than 5% of a kind's
    /// entries since the latest version publishes nothing unless `allowShrink`; those
    /// kinds are then listed again by the next run. Linked files carried from the latest
    /// version (``carryFailedFiles(run:allowShrink:)``), those whose host failed and those
    /// it answered 404/410 for, are published with it, and recorded as carried.
    /// - Throws: `StoreError.runTakenOver` when `owner` no longer owns the run,
    ///   `.listsShrank`, or `.corrupt` when jobs are still open or a kind was never listed.
    package func publish(run: RunRecord, owner: String, skipIfUnchanged: Bool, allowShrink: Bool = false) throws -> PublishOutcome {
        let runID = SQLValue(run.id)
        let display = layout.display(layout.storeFile)
        let result: Result<PublishOutcome, any Error> = try write { database in
            // Checked inside the transaction, so no other writer can slip in between.
            try Self.checkOwnership(database, run: run, owner: owner, mirror: self.layout.root.path)
            let open = try database.integer(
                "SELECT COUNT(*) FROM frontier WHERE run = ? AND state IN ('pending', 'failed')", [runID]) ?? 0
            guard open == 0 else {
                throw StoreError.corrupt(display, "\(open) jobs still open at publish")
            }
            try Self.checkListed(database, run: run.id, display: display)
            if skipIfUnchanged, let base = run.baseVersion, try Self.runEqualsVersion(database, run: run.id, version: base) {
                try Self.deleteRun(database, run: run.id)
                return .success(.unchanged(base))
            }
            let shrinks = try Self.shrunkenLists(database, run: run)
            if !shrinks.isEmpty && !allowShrink {
                try Self.forgetLists(database, run: run.id, kinds: shrinks.map(\.kind))
                return .failure(StoreError.listsShrank(shrinks))
            }
            return .success(try Self.publishVersion(database, run: run))
        }
        // The frontier just deleted can be most of the file (52,286 sprite jobs): give it back.
        if case .success = result {
            try? read { database in try database.execute("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);") }
        }
        return try result.get()
    }

    /// The newest published version's number, or nil before the first: the one spelling of
    /// that query, inside a transaction or a read the caller already holds.
    package static func newestVersionNumber(_ database: Database) throws -> Int? {
        try database.integer("SELECT MAX(number) FROM versions")
    }

    /// Turns the run's frontier into the next version and forgets the run.
    private static func publishVersion(_ database: Database, run: RunRecord) throws -> PublishOutcome {
        let runID = SQLValue(run.id)
        let number = (try newestVersionNumber(database) ?? 0) + 1
        let version = SQLValue(number)
        try database.run("""
            INSERT INTO version_documents(version, kind, id, name, hash, position)
            SELECT ?, kind, id, name, hash, position FROM frontier WHERE run = ? AND job = 'document'
            """, [version, runID])
        for tree in LinkedTree.allCases {
            try database.run("""
                INSERT OR IGNORE INTO \(tree.versionTable)(version, path, url, hash)
                SELECT ?, path, url, hash FROM frontier WHERE run = ? AND job = ? AND state IN \(JobState.inVersionSQL)
                """, [version, runID, .text(tree.job)])
        }
        try recordCarried(database, run: run.id, version: number)
        let documents = try database.integer("SELECT COUNT(*) FROM version_documents WHERE version = ?", [version]) ?? 0
        let sprites = try database.integer("SELECT COUNT(*) FROM version_sprites WHERE version = ?", [version]) ?? 0
        let record = VersionRecord(number: number, createdAt: Timestamp.now(), mode: run.plan.mode,
                                   source: run.plan.source, spriteSource: run.plan.spriteSource,
                                   spriteSet: run.plan.spriteSet, deployHash: run.deployHash,
                                   documents: documents, sprites: sprites)
        try database.run("""
            INSERT INTO versions(\(Self.versionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [version, .text(record.createdAt), .text(record.mode.rawValue), .text(record.source),
                  SQLValue(record.spriteSource), .text(record.spriteSet), SQLValue(record.deployHash),
                  SQLValue(documents), SQLValue(sprites)])
        try database.run("INSERT OR REPLACE INTO version_kinds(version, selection, resolved) VALUES (?, ?, ?)",
                         [version, .text(run.plan.kinds),
                          .text(try runKinds(database, run: run.id).map(\.apiName).joined(separator: ","))])
        try database.run("INSERT OR REPLACE INTO version_cry_sets(version, selection, source) VALUES (?, ?, ?)",
                         [version, .text(run.plan.cries), SQLValue(run.plan.crySource)])
        try database.run("UPDATE sprite_reports SET version = ? WHERE run = ? AND version IS NULL", [version, runID])
        try Self.deleteRun(database, run: run.id)
        return .published(record)
    }

    static func deleteRun(_ database: Database, run: Int) throws {
        try database.run("DELETE FROM frontier WHERE run = ?", [SQLValue(run)])
        try database.run("DELETE FROM sprite_reports WHERE run = ? AND version IS NULL", [SQLValue(run)])
        try database.run("DELETE FROM runs WHERE id = ?", [SQLValue(run)])
    }

    /// True when the run's documents and sprites are exactly those of `version`.
    static func runEqualsVersion(_ database: Database, run: Int, version: Int) throws -> Bool {
        let runDocuments = "SELECT kind, id, name, hash FROM frontier WHERE run = ?1 AND job = 'document'"
        let versionDocuments = "SELECT kind, id, name, hash FROM version_documents WHERE version = ?2"
        // Sprites and cries alike: (tree, path, hash) of the run against the version's.
        let runSprites = "SELECT job, path, hash FROM frontier WHERE run = ?1 AND job IN \(LinkedTree.jobsSQL) AND state IN \(JobState.inVersionSQL)"
        // One SELECT (compound operators chain left to right, so a bare UNION here would
        // join the EXCEPT below instead of this side of it).
        let versionSprites = "SELECT * FROM (SELECT 'sprite', path, hash FROM version_sprites WHERE version = ?2 "
            + "UNION ALL SELECT 'cry', path, hash FROM version_cries WHERE version = ?2)"
        // EXCEPT is left-associative with UNION, so each difference is counted on its own.
        // A list that only changed its order is a change too (the export writes lists in
        // the source's order); versions made before positions were kept have none to compare.
        let reordered = """
            SELECT 1 FROM frontier f JOIN version_documents v ON v.version = ?2 AND v.kind = f.kind AND v.id = f.id
            WHERE f.run = ?1 AND f.job = 'document' AND v.position IS NOT NULL AND v.position IS NOT f.position
            """
        let differences = try database.integer("""
            SELECT (SELECT COUNT(*) FROM (\(reordered)))
                 + (SELECT COUNT(*) FROM (\(runDocuments) EXCEPT \(versionDocuments)))
                 + (SELECT COUNT(*) FROM (\(versionDocuments) EXCEPT \(runDocuments)))
                 + (SELECT COUNT(*) FROM (\(runSprites) EXCEPT \(versionSprites)))
                 + (SELECT COUNT(*) FROM (\(versionSprites) EXCEPT \(runSprites)))
            """, [SQLValue(run), SQLValue(version)]) ?? 1
        return differences == 0
    }
}

/// A document's row as read from the store: its deflated bytes, not yet checked.
package struct DeflatedDocument: Sendable {
    let hash: SHA256Digest
    /// The canonical JSON's length, as stored beside it.
    package let size: Int
    let compressed: [UInt8]
    /// The store file, as errors name it.
    let storeDisplay: String

    /// The canonical JSON, inflated and checked against its hash.
    /// - Throws: `StoreError.corrupt` when it does not inflate to its size and hash.
    package func body() throws -> [UInt8] {
        let body: [UInt8]
        do { body = try Zlib.decompress(compressed, limit: size) } catch {
            throw StoreError.corrupt(storeDisplay, "document \(hash.hex): \(error)")
        }
        guard body.count == size, SHA256.hash(body) == hash else {
            throw StoreError.corrupt(storeDisplay, "document \(hash.hex) does not match its hash")
        }
        return body
    }
}
