import Foundation
import PokeArchive
import PokeSQLite

/// Linked files of one tree and host that a run could not fetch: those the latest
/// version held are carried into the next version unchanged, whatever the host answered
/// (a failure, or 404/410 while a document still links them), the others are left out
/// (serve keeps upstream's link) and asked for again by the next run.
package struct CarriedFiles: Sendable, Equatable, Codable {
    package var tree: LinkedTree
    /// `host:port` the files were asked at, or the folder they were read from.
    package var host: String
    /// Files the latest version held, kept with their bytes there.
    package var carried: Int
    /// Of `carried`, those the host answered 404/410 for: missing at their host, held
    /// until the documents stop linking them or `--allow-shrink` drops them.
    package var missing: Int
    /// Files no version held, left for the next run.
    package var postponed: Int
    /// One failure, as it was said: `pokemon/latest/25.ogg: HTTP 500 after 5 attempts`.
    package var example: String

    package init(tree: LinkedTree, host: String, carried: Int, missing: Int = 0, postponed: Int, example: String) {
        self.tree = tree
        self.host = host
        self.carried = carried
        self.missing = missing
        self.postponed = postponed
        self.example = example
    }

    enum CodingKeys: String, CodingKey { case tree, host, carried, missing, postponed, example }

    /// `missing` is absent from what a build before it recorded (`last_run_carried`).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tree = try container.decode(LinkedTree.self, forKey: .tree)
        host = try container.decode(String.self, forKey: .host)
        carried = try container.decode(Int.self, forKey: .carried)
        missing = try container.decodeIfPresent(Int.self, forKey: .missing) ?? 0
        postponed = try container.decode(Int.self, forKey: .postponed)
        example = try container.decode(String.self, forKey: .example)
    }

    /// `cries: 1302 carried from the version before (60 missing at their host): 127.0.0.1:8081
    /// failed (...)`, for the run's last lines, status and diffs: one line per tree and host.
    package var line: String {
        let kept = carried > 0 ? "\(carried) carried from the version before"
            + (missing > 0 ? " (\(missing) missing at their host: 404/410)" : "") : nil
        let counts = [kept, postponed > 0 ? "\(postponed) never held left for the next run" : nil].compactMap { $0 }
        return "\(tree.folderName): \(counts.joined(separator: ", ")): \(host) failed (e.g. \(example))"
    }

    /// The host part of where a file was asked: `host:port` of a URL, else the folder of a path.
    static func host(of fetched: String?) -> String {
        guard let fetched, !fetched.isEmpty else { return "unknown host" }
        return httpHost(fetched) ?? "folder " + (fetched as NSString).deletingLastPathComponent
    }

    /// `host:port` of an http(s) URL; nil for a local file. The one spelling of a file host:
    /// the sprite phase gives hosts up by it and the carried lines are grouped by it, so a
    /// given-up host and its carried files name the same thing.
    static func httpHost(_ location: String) -> String? {
        guard let url = URL(string: location), let scheme = url.scheme, scheme == "http" || scheme == "https",
              let host = url.host else { return nil }
        return "\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }
}

/// Files of one tree the latest version held that `--allow-shrink` let go: their host
/// answered 404/410 for them. A version without them is what the operator accepted.
package struct DroppedFiles: Sendable, Equatable {
    package var tree: LinkedTree
    package var count: Int
    package var previousVersion: Int
    /// One of them, as it was asked for.
    package var example: String

    /// `cries: 60 files of version 7 dropped, missing at their host (404/410) (--allow-shrink; e.g. URL)`.
    package var line: String {
        "\(tree.folderName): \(count) file(s) of version \(previousVersion) dropped, missing at their host (404/410) "
            + "(--allow-shrink; e.g. \(example))"
    }
}

/// What became of the linked files a run could not fetch, at publish.
package struct FileSettlement: Sendable, Equatable {
    /// Carried from the latest version, or left for the next run, by tree and host.
    package var carried: [CarriedFiles] = []
    /// Let go by `--allow-shrink`, by tree.
    package var dropped: [DroppedFiles] = []
}

extension LinkedTree: Codable {}

/// Linked files their host did not deliver: carried (failed, or missing at their host), or postponed.
extension Store {
    /// Records a linked file's failure (after every retry, or its host given up) with the
    /// address it was asked at. The run can still publish: see ``carryFailedFiles(run:allowShrink:)``.
    package func failLinkedFile(run: Int, job: SpriteJob, fetched: String?, error: String) throws {
        try write { database in
            try database.run("UPDATE frontier SET state = 'failed', hash = NULL, error = ?, fetched = ? WHERE run = ? AND job = ? AND key = ?",
                             [.text(error), SQLValue(fetched), SQLValue(run), .text(job.tree.job), .text(job.url)])
        }
    }

    /// Remembers where a missing file was asked, for the carried and dropped lines.
    func recordFetched(run: Int, job: SpriteJob, fetched: String?) throws {
        guard let fetched else { return }
        try write { database in
            try database.run("UPDATE frontier SET fetched = ? WHERE run = ? AND job = ? AND key = ?",
                             [.text(fetched), SQLValue(run), .text(job.tree.job), .text(job.url)])
        }
    }

    /// Settles every linked file of `run` its host did not deliver. One the latest version
    /// holds (same URL) is carried with the bytes that version has: `carried` when the host
    /// failed, `vanished` when it answered 404/410 (its document still links it, or it
    /// would not be in the run). Any other failed file is `postponed`; any other 404 stays
    /// `missing` (recorded as missing upstream). With `allowShrink` the 404/410 ones the
    /// latest version holds are let go instead (those a resumed run had carried too).
    /// Idempotent: a run interrupted after it and resumed settles the same way.
    package func carryFailedFiles(run: Int, allowShrink: Bool = false) throws -> FileSettlement {
        try write { database in
            let runValue = SQLValue(run)
            for tree in LinkedTree.allCases {
                let job = SQLValue.text(tree.job)
                if allowShrink {
                    // Carried by this run before the loss was accepted: missing again, reported as such.
                    try database.run("""
                        INSERT OR IGNORE INTO sprite_reports(run, url, document, outcome, reason)
                        SELECT run, key, coalesce(document, name, ''), 'missing', coalesce(error, 'HTTP 404 upstream')
                        FROM frontier WHERE run = ? AND job = ? AND state = 'vanished'
                        """, [runValue, job])
                    try database.run("UPDATE frontier SET state = 'missing', hash = NULL WHERE run = ? AND job = ? AND state = 'vanished'",
                                     [runValue, job])
                }
                let failed = try database.rows("SELECT key FROM frontier WHERE run = ? AND job = ? AND state = 'failed'",
                                               [runValue, job]) { $0.text(0) }
                let gone = allowShrink ? [] : try database.rows("""
                    SELECT key, fetched FROM frontier WHERE run = ? AND job = ? AND state = 'missing'
                    """, [runValue, job]) { ($0.text(0), $0.optionalText(1)) }
                guard !failed.isEmpty || !gone.isEmpty else { continue }
                let heldByURL = try Self.heldFiles(database, tree: tree)?.hashes ?? [:]
                for url in failed {
                    if let held = heldByURL[url] {
                        try database.run("UPDATE frontier SET state = 'carried', hash = ? WHERE run = ? AND job = ? AND key = ?",
                                         [.blob(held), runValue, job, .text(url)])
                    } else {
                        try database.run("UPDATE frontier SET state = 'postponed' WHERE run = ? AND job = ? AND key = ?",
                                         [runValue, job, .text(url)])
                    }
                }
                // Held, still linked, and missing at the host: kept, and not reported as
                // missing upstream (the version holds it); the host's answer is the example.
                for (url, fetched) in gone {
                    guard let held = heldByURL[url] else { continue }
                    let reason = try database.row("""
                        SELECT reason FROM sprite_reports WHERE run = ? AND version IS NULL AND url = ? AND outcome = 'missing'
                        """, [runValue, .text(url)]) { $0.text(0) } ?? "HTTP 404 upstream"
                    try database.run("UPDATE frontier SET state = 'vanished', hash = ?, error = ? WHERE run = ? AND job = ? AND key = ?",
                                     [.blob(held), .text("\(fetched ?? url): \(reason)"), runValue, job, .text(url)])
                    try database.run("DELETE FROM sprite_reports WHERE run = ? AND version IS NULL AND url = ? AND outcome = 'missing'",
                                     [runValue, .text(url)])
                }
            }
            return FileSettlement(carried: try Self.carriedFiles(database, run: run),
                                  dropped: allowShrink ? try Self.droppedFiles(database, run: run) : [])
        }
    }

    /// The run's carried and postponed files, by tree and host.
    static func carriedFiles(_ database: Database, run: Int) throws -> [CarriedFiles] {
        var byKey: [String: CarriedFiles] = [:]
        let rows = try database.rows("""
            SELECT job, fetched, state, path, error FROM frontier
            WHERE run = ? AND job IN \(LinkedTree.jobsSQL) AND state IN ('carried', 'vanished', 'postponed') ORDER BY job, path
            """, [SQLValue(run)]) { ($0.text(0), $0.optionalText(1), $0.text(2), $0.optionalText(3), $0.optionalText(4)) }
        for (job, fetched, state, path, error) in rows {
            let tree = LinkedTree(job: job) ?? .sprites
            let host = CarriedFiles.host(of: fetched)
            let key = tree.rawValue + "\t" + host
            var entry = byKey[key] ?? CarriedFiles(tree: tree, host: host, carried: 0, postponed: 0,
                                                   example: "\(path ?? "?"): \(error ?? "failed")")
            switch JobState(rawValue: state) {
            case .carried: entry.carried += 1
            case .vanished: entry.carried += 1; entry.missing += 1
            default: entry.postponed += 1
            }
            byKey[key] = entry
        }
        return byKey.keys.sorted().compactMap { byKey[$0] }
    }

    /// Records the run's carried files with the version it publishes.
    static func recordCarried(_ database: Database, run: Int, version: Int) throws {
        for entry in try carriedFiles(database, run: run) {
            try database.run("""
                INSERT OR REPLACE INTO version_carried(version, tree, host, carried, missing, postponed, example)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [SQLValue(version), .text(entry.tree.rawValue), .text(entry.host), SQLValue(entry.carried),
                      SQLValue(entry.missing), SQLValue(entry.postponed), .text(entry.example)])
        }
    }

    /// What version `number` carried from the one before, by tree and host (none for a
    /// version that carried nothing, or a store made before files were carried).
    package func carriedFiles(version number: Int) throws -> [CarriedFiles] {
        try read { database in
            guard try Self.hasTable(database, "version_carried") else { return [] }
            // A store an older build made, opened read-only, has no `missing` column yet.
            let missing = try Self.hasColumn(database, table: "version_carried", column: "missing") ? "missing" : "0"
            return try database.rows("""
                SELECT tree, host, carried, \(missing), postponed, example FROM version_carried WHERE version = ? ORDER BY tree DESC, host
                """, [SQLValue(number)]) {
                CarriedFiles(tree: LinkedTree(rawValue: $0.text(0)) ?? .sprites, host: $0.text(1), carried: $0.int(2),
                             missing: $0.int(3), postponed: $0.int(4), example: $0.text(5))
            }
        }
    }

    static let lastRunFilesKey = "last_run_carried"

    /// Records what the last run that reached publishing carried (empty: nothing), for `status`:
    /// a sync that carried every file it failed may publish nothing new, and must still say so.
    package func recordLastRunCarried(_ report: LastRunCarried) throws {
        try setMeta(Self.lastRunFilesKey, String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
    }

    /// What the last run that reached publishing carried, if a run recorded it.
    package func lastRunCarried() throws -> LastRunCarried? {
        guard let text = try meta(Self.lastRunFilesKey) else { return nil }
        return try? JSONDecoder().decode(LastRunCarried.self, from: Data(text.utf8))
    }
}

/// What the last run that reached publishing did with the linked files it could not fetch.
package struct LastRunCarried: Sendable, Codable, Equatable {
    /// When it finished.
    package var at: String
    /// The version it published, or the one it found unchanged.
    package var version: Int
    package var published: Bool
    package var files: [CarriedFiles]
    /// The trees whose changed files it did not publish (too many changed: `--allow-mass-change`).
    package var withheld: [WithheldFiles]

    package init(at: String, version: Int, published: Bool, files: [CarriedFiles], withheld: [WithheldFiles] = []) {
        self.at = at
        self.version = version
        self.published = published
        self.files = files
        self.withheld = withheld
    }

    enum CodingKeys: String, CodingKey { case at, version, published, files, withheld }

    /// `withheld` is absent from what a build before it recorded.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        at = try container.decode(String.self, forKey: .at)
        version = try container.decode(Int.self, forKey: .version)
        published = try container.decode(Bool.self, forKey: .published)
        files = try container.decode([CarriedFiles].self, forKey: .files)
        withheld = try container.decodeIfPresent([WithheldFiles].self, forKey: .withheld) ?? []
    }

    /// Whether the run left the operator something to read: files carried or withheld.
    package var isEmpty: Bool { files.isEmpty && withheld.isEmpty }
}

/// What `--allow-shrink` lets go of the linked files.
extension Store {
    /// Per tree, the files the latest version holds that the run found missing (404/410) at
    /// their host and left `missing`: with `--allow-shrink` the new version goes without them.
    static func droppedFiles(_ database: Database, run: Int) throws -> [DroppedFiles] {
        guard let previous = try Self.newestVersionNumber(database) else { return [] }
        return try LinkedTree.allCases.compactMap { tree in
            let lost = try database.rows("""
                SELECT f.key, f.fetched FROM frontier f JOIN \(tree.versionTable) v ON v.version = ? AND v.url = f.key
                WHERE f.run = ? AND f.job = ? AND f.state = 'missing' ORDER BY f.path
                """, [SQLValue(previous), SQLValue(run), .text(tree.job)]) { ($0.text(0), $0.optionalText(1)) }
            guard let first = lost.first else { return nil }
            return DroppedFiles(tree: tree, count: lost.count, previousVersion: previous, example: first.1 ?? first.0)
        }
    }
}
