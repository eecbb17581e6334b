import Foundation
import PokeArchive
import PokeSQLite

/// The run in progress and its frontier. Every state change is committed as it
/// happens, so a run killed at any moment resumes with only in-flight work lost.
extension Store {
    package func currentRun() throws -> RunRecord? {
        try read { database in
            let kinds = try Self.hasColumn(database, table: "runs", column: "kinds") ? "kinds, resolved_kinds" : "NULL, NULL"
            let cries = try Self.hasColumn(database, table: "runs", column: "cries") ? "cries, cry_source" : "NULL, NULL"
            let root = try Self.hasColumn(database, table: "runs", column: "root_endpoints") ? "root_endpoints" : "NULL"
            return try database.row("""
                SELECT id, mode, source, sprite_source, sprite_set, revalidate, started_at, deploy_hash, base_version,
                       \(kinds), \(cries), \(root)
                FROM runs ORDER BY id DESC LIMIT 1
                """) { row in
                RunRecord(id: row.int(0),
                          plan: RunPlan(mode: RunMode(rawValue: row.text(1)) ?? .full, source: row.text(2),
                                        spriteSource: row.optionalText(3), spriteSet: row.text(4),
                                        revalidate: row.int(5) != 0, kinds: row.optionalText(9) ?? "default",
                                        cries: row.optionalText(11) ?? "none", crySource: row.optionalText(12)),
                          startedAt: row.text(6), deployHash: row.optionalText(7), baseVersion: row.optionalInt(8),
                          resolvedKinds: row.optionalText(10).map(Self.kindList),
                          rootEndpoints: row.optionalText(13).map { $0.split(separator: ",").map(String.init) })
            }
        }
    }

    /// Starts a run against the latest version.
    package func startRun(_ plan: RunPlan) throws -> RunRecord {
        let startedAt = Timestamp.now()
        return try write { database in
            let base = try Self.newestVersionNumber(database)
            try database.run("""
                INSERT INTO runs(mode, source, sprite_source, sprite_set, revalidate, started_at, base_version, kinds,
                                 cries, cry_source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(plan.mode.rawValue), .text(plan.source), SQLValue(plan.spriteSource), .text(plan.spriteSet),
                      SQLValue(plan.revalidate), .text(startedAt), SQLValue(base), .text(plan.kinds),
                      .text(plan.cries), SQLValue(plan.crySource)])
            return RunRecord(id: Int(database.lastInsertRowID), plan: plan, startedAt: startedAt,
                             deployHash: nil, baseVersion: base)
        }
    }

    /// Records what the run's `--kinds` resolved to; nil forgets it, so that the next
    /// attempt reads the source's root again.
    package func setResolvedKinds(run: Int, _ kinds: [ResourceKind]?) throws {
        try write { database in
            try database.run("UPDATE runs SET resolved_kinds = ? WHERE id = ?",
                             [SQLValue(kinds.map { $0.map(\.apiName).joined(separator: ",") }), SQLValue(run)])
        }
    }

    static func kindList(_ text: String) -> [ResourceKind] {
        text.split(separator: ",").map { ResourceKind(rawValue: String($0)) }
    }

    /// Forgets a run and its frontier. Stored content stays: it is content-addressed.
    package func discardRun(_ run: Int) throws {
        try write { database in try Self.deleteRun(database, run: run) }
    }

    /// Records the deploy the run saw first; later lists of the same run do not overwrite it.
    package func setDeployHash(run: Int, _ hash: String?) throws {
        try write { database in
            try database.run("UPDATE runs SET deploy_hash = ? WHERE id = ? AND deploy_hash IS NULL",
                             [SQLValue(hash), SQLValue(run)])
        }
    }

    /// Records a kind's list: one pending job per listed document, at its place in the
    /// list, and the list itself as done, with its fingerprint (``ListedResource/fingerprint(of:)``)
    /// for a later reading to compare. A kind listed again (after a refused shrink, or
    /// upstream changed) keeps the jobs of documents still listed and loses those no longer listed.
    /// `pokemon-encounters` and `meta` have no list of their own: theirs is derived
    /// (one per pokemon of the run's list; the one meta document) and given here.
    package func recordList(run: Int, _ list: [ListedResource], kind: ResourceKind) throws {
        try write { database in try Self.recordList(database, run: run, list, kind: kind) }
    }

    static func recordList(_ database: Database, run: Int, _ list: [ListedResource], kind: ResourceKind) throws {
        let listed = Set(list.map(\.id))
        let known = try database.rows("SELECT id FROM frontier WHERE run = ? AND job = 'document' AND kind = ?",
                                      [SQLValue(run), .text(kind.apiName)]) { $0.int(0) }
        for id in known where !listed.contains(id) {
            try database.run("DELETE FROM frontier WHERE run = ? AND job = 'document' AND key = ?",
                             [SQLValue(run), .text(kind.documentKey(id: id))])
        }
        let insert = try database.statement("""
            INSERT INTO frontier(run, job, key, kind, id, name, position) VALUES (?, 'document', ?, ?, ?, ?, ?)
            ON CONFLICT(run, job, key) DO UPDATE SET name = excluded.name, position = excluded.position
            """)
        for (position, resource) in list.enumerated() {
            try insert.run([SQLValue(run), .text(kind.documentKey(id: resource.id)), .text(kind.apiName),
                            SQLValue(resource.id), SQLValue(resource.name),
                            kind.isListed ? SQLValue(position) : .null])
        }
        try database.run("INSERT OR REPLACE INTO frontier(run, job, key, state, hash) VALUES (?, 'list', ?, 'done', ?)",
                         [SQLValue(run), .text(kind.apiName), .blob(ListedResource.fingerprint(of: list).bytes)])
    }

    /// The documents of a run in the given states, with what the store knows of each.
    package func documentJobs(run: Int, states: [JobState]) throws -> [DocumentJob] {
        let placeholders = states.map { _ in "?" }.joined(separator: ",")
        return try read { database in
            try database.rows("""
                SELECT f.kind, f.id, f.name, v.etag, v.last_modified, v.hash, f.hash
                FROM frontier f LEFT JOIN validators v ON v.key = f.key
                WHERE f.run = ? AND f.job = 'document' AND f.state IN (\(placeholders))
                ORDER BY f.kind, f.id
                """, [SQLValue(run)] + states.map { .text($0.rawValue) }) { row in
                let validators = Validators(etag: row.optionalText(3), lastModified: row.optionalText(4))
                return DocumentJob(kind: ResourceKind(rawValue: row.text(0)), id: row.int(1), name: row.optionalText(2),
                                   validators: validators.isEmpty ? nil : validators,
                                   knownHash: row.optionalBlob(5).flatMap { SHA256Digest(bytes: $0) },
                                   settledHash: row.optionalBlob(6).flatMap { SHA256Digest(bytes: $0) })
            }
        }
    }

    /// New content for a document: stores it (once per hash), keeps its validators,
    /// settles the job and queues the sprites it names, in one transaction.
    /// A stored copy of the same hash whose bytes differ from the fresh ones (a damaged
    /// body: the fresh bytes were just hashed, so they are the sound ones) is rewritten.
    package func storeDocument(run: Int, job: DocumentJob, content: StoredDocument?, hash: SHA256Digest,
                              validators: Validators?, state: JobState,
                              sprites: [SpriteJob], reports: [SpriteReport]) throws {
        try write { database in
            if let content {
                try database.run("""
                    INSERT INTO documents(hash, size, body, sprite_refs, cry_refs) VALUES (?1, ?2, ?3, ?4, ?5)
                    ON CONFLICT(hash) DO UPDATE SET size = ?2, body = ?3, sprite_refs = ?4, cry_refs = ?5
                    WHERE size IS NOT ?2 OR body IS NOT ?3 OR sprite_refs IS NOT ?4 OR cry_refs IS NOT ?5
                    """,
                                 [.blob(hash.bytes), SQLValue(content.size), .blob(content.compressedBody),
                                  content.compressedSpriteRefs.map { .blob($0) } ?? .null,
                                  content.compressedCryRefs.map { .blob($0) } ?? .null])
            }
            if let validators, !validators.isEmpty {
                try database.run("INSERT OR REPLACE INTO validators(key, etag, last_modified, hash) VALUES (?, ?, ?, ?)",
                                 [.text(job.key), SQLValue(validators.etag), SQLValue(validators.lastModified), .blob(hash.bytes)])
            }
            try database.run("UPDATE frontier SET state = ?, hash = ?, error = NULL WHERE run = ? AND job = 'document' AND key = ?",
                             [.text(state.rawValue), .blob(hash.bytes), SQLValue(run), .text(job.key)])
            try Self.queueSprites(database, run: run, sprites: sprites, reports: reports)
        }
    }

    static func queueSprites(_ database: Database, run: Int, sprites: [SpriteJob], reports: [SpriteReport]) throws {
        let insert = try database.statement("""
            INSERT OR IGNORE INTO frontier(run, job, key, url, path, document) VALUES (?, ?, ?, ?, ?, ?)
            """)
        for sprite in sprites {
            try insert.run([SQLValue(run), .text(sprite.tree.job), .text(sprite.url), .text(sprite.url), .text(sprite.path),
                            .text(sprite.document)])
        }
        let report = try database.statement("""
            INSERT OR IGNORE INTO sprite_reports(run, url, document, outcome, reason) VALUES (?, ?, ?, ?, ?)
            """)
        for item in reports {
            try report.run([SQLValue(run), .text(item.url), .text(item.document), .text(item.outcome.rawValue), .text(item.reason)])
        }
    }

    /// Marks a job failed after its retries, with the error to show the user.
    package func failJob(run: Int, job: String, key: String, error: String) throws {
        try write { database in
            try database.run("UPDATE frontier SET state = 'failed', error = ? WHERE run = ? AND job = ? AND key = ?",
                             [.text(error), SQLValue(run), .text(job), .text(key)])
        }
    }

    /// Jobs that failed after retries and hold the run back: (job key, error). A linked
    /// file that failed does not (it is carried or postponed: ``carryFailedFiles(run:allowShrink:)``).
    package func failures(run: Int) throws -> [(key: String, error: String)] {
        try read { database in
            try database.rows("SELECT key, error FROM frontier WHERE run = ? AND state = 'failed' AND job NOT IN \(LinkedTree.jobsSQL) ORDER BY job, key",
                              [SQLValue(run)]) { ($0.text(0), $0.optionalText(1) ?? "failed") }
        }
    }

    package func progress(run: Int) throws -> RunProgress {
        try read { database in
            var progress = RunProgress()
            progress.listedKinds = Set(try database.rows("SELECT key FROM frontier WHERE run = ? AND job = 'list'",
                                                         [SQLValue(run)]) { ResourceKind(rawValue: $0.text(0)) })
            let counts = try database.rows("""
                SELECT job, kind, state, COUNT(*) FROM frontier WHERE run = ? GROUP BY job, kind, state
                """, [SQLValue(run)]) { ($0.text(0), $0.optionalText(1), $0.text(2), $0.int(3)) }
            for (job, kindName, stateName, count) in counts {
                guard let state = JobState(rawValue: stateName) else { continue }
                switch job {
                case "document":
                    if let kind = kindName.map(ResourceKind.init(rawValue:)) { progress.documents[kind, default: [:]][state] = count }
                // Sprites and cries: the linked files, fetched in one phase.
                case "sprite", "cry": progress.sprites[state, default: 0] += count
                default: break
                }
            }
            return progress
        }
    }
}

/// A document ready to be stored: its canonical body compressed, and the sprite URLs it names.
package struct StoredDocument: Sendable {
    package var size: Int
    package var compressedBody: [UInt8]
    package var compressedSpriteRefs: [UInt8]?
    /// A pokemon's cry links, as `compressedSpriteRefs` (keys below `cries`).
    package var compressedCryRefs: [UInt8]?

    /// The zlib level bodies are stored with. Level 1 deflates canonical PokeAPI JSON
    /// about three times as fast as the default 6 for a store about 15% larger (16.5 MB
    /// instead of 14.3 for the 2026-08-08 snapshot): at level 6 compressing was a fifth
    /// of a crawl's CPU. Readers inflate any level, and the hash is of the uncompressed
    /// canonical bytes, so stores written at either level read the same.
    package static let compressionLevel: Int32 = 1

    package init(size: Int, compressedBody: [UInt8], compressedSpriteRefs: [UInt8]?, compressedCryRefs: [UInt8]? = nil) {
        self.size = size
        self.compressedBody = compressedBody
        self.compressedSpriteRefs = compressedSpriteRefs
        self.compressedCryRefs = compressedCryRefs
    }
}
