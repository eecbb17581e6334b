import Foundation
import PokeArchive
import PokeSQLite

/// Linked files of one tree and host that a run could not fetch: those the latest
/// version held are carried into the next version unchanged, the others are left out
/// (serve keeps upstream's link) and asked for again by the next run.
package struct CarriedFiles: Sendable, Equatable, Codable {
    package var tree: LinkedTree
    /// `host:port` the files were asked at, or the folder they were read from.
    package var host: String
    /// Files the latest version held, kept with their bytes there.
    package var carried: Int
    /// Files no version held, left for the next run.
    package var postponed: Int
    /// One failure, as it was said: `pokemon/latest/25.ogg: HTTP 500 after 5 attempts`.
    package var example: String

    package init(tree: LinkedTree, host: String, carried: Int, postponed: Int, example: String) {
        self.tree = tree
        self.host = host
        self.carried = carried
        self.postponed = postponed
        self.example = example
    }

    /// `cries: 1302 carried from 127.0.0.1:8081 (...)`, for the run's last lines, status and diffs.
    package var line: String {
        let counts = [carried > 0 ? "\(carried) carried from the version before" : nil,
                      postponed > 0 ? "\(postponed) never held left for the next run" : nil].compactMap { $0 }
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

extension LinkedTree: Codable {}

/// Linked files that failed: carried, postponed, and the guard against a host that lost them.
extension Store {
    /// Records a linked file's failure (after every retry, or its host given up) with the
    /// address it was asked at. The run can still publish: see ``carryFailedFiles(run:)``.
    package func failLinkedFile(run: Int, job: SpriteJob, fetched: String?, error: String) throws {
        try write { database in
            try database.run("UPDATE frontier SET state = 'failed', hash = NULL, error = ?, fetched = ? WHERE run = ? AND job = ? AND key = ?",
                             [.text(error), SQLValue(fetched), SQLValue(run), .text(job.tree.job), .text(job.url)])
        }
    }

    /// Remembers where a missing file was asked, for the shrink guard's message.
    func recordFetched(run: Int, job: SpriteJob, fetched: String?) throws {
        guard let fetched else { return }
        try write { database in
            try database.run("UPDATE frontier SET fetched = ? WHERE run = ? AND job = ? AND key = ?",
                             [.text(fetched), SQLValue(run), .text(job.tree.job), .text(job.url)])
        }
    }

    /// Settles every failed linked file of `run`: one the latest version holds (same URL)
    /// becomes `carried` with the bytes that version has; any other `postponed`.
    /// - Returns: what was carried and postponed, by tree and host.
    package func carryFailedFiles(run: Int) throws -> [CarriedFiles] {
        try write { database in
            let latest = try database.integer("SELECT MAX(number) FROM versions")
            for tree in LinkedTree.allCases {
                let failed = try database.rows("SELECT key FROM frontier WHERE run = ? AND job = ? AND state = 'failed'",
                                               [SQLValue(run), .text(tree.job)]) { $0.text(0) }
                guard !failed.isEmpty else { continue }
                // The latest version's files by URL, read once: the version tables are keyed by
                // path, so a lookup by URL per failed file would scan the version each time
                // (a host given up on a whole sprite set is tens of thousands of files).
                var heldByURL: [String: [UInt8]] = [:]
                if let latest {
                    for (url, hash) in try database.rows("SELECT url, hash FROM \(tree.versionTable) WHERE version = ?",
                                                         [SQLValue(latest)], { ($0.text(0), $0.blob(1)) }) {
                        heldByURL[url] = hash
                    }
                }
                for url in failed {
                    if let held = heldByURL[url] {
                        try database.run("UPDATE frontier SET state = 'carried', hash = ? WHERE run = ? AND job = ? AND key = ?",
                                         [.blob(held), SQLValue(run), .text(tree.job), .text(url)])
                    } else {
                        try database.run("UPDATE frontier SET state = 'postponed' WHERE run = ? AND job = ? AND key = ?",
                                         [SQLValue(run), .text(tree.job), .text(url)])
                    }
                }
            }
            return try Self.carriedFiles(database, run: run)
        }
    }

    /// The run's carried and postponed files, by tree and host.
    static func carriedFiles(_ database: Database, run: Int) throws -> [CarriedFiles] {
        var byKey: [String: CarriedFiles] = [:]
        let rows = try database.rows("""
            SELECT job, fetched, state, path, error FROM frontier
            WHERE run = ? AND job IN ('sprite', 'cry') AND state IN ('carried', 'postponed') ORDER BY job, path
            """, [SQLValue(run)]) { ($0.text(0), $0.optionalText(1), $0.text(2), $0.optionalText(3), $0.optionalText(4)) }
        for (job, fetched, state, path, error) in rows {
            let tree: LinkedTree = job == LinkedTree.cries.job ? .cries : .sprites
            let host = CarriedFiles.host(of: fetched)
            let key = tree.rawValue + "\t" + host
            var entry = byKey[key] ?? CarriedFiles(tree: tree, host: host, carried: 0, postponed: 0,
                                                   example: "\(path ?? "?"): \(error ?? "failed")")
            if state == JobState.carried.rawValue { entry.carried += 1 } else { entry.postponed += 1 }
            byKey[key] = entry
        }
        return byKey.keys.sorted().compactMap { byKey[$0] }
    }

    /// Records the run's carried files with the version it publishes.
    static func recordCarried(_ database: Database, run: Int, version: Int) throws {
        for entry in try carriedFiles(database, run: run) {
            try database.run("""
                INSERT OR REPLACE INTO version_carried(version, tree, host, carried, postponed, example) VALUES (?, ?, ?, ?, ?, ?)
                """, [SQLValue(version), .text(entry.tree.rawValue), .text(entry.host), SQLValue(entry.carried),
                      SQLValue(entry.postponed), .text(entry.example)])
        }
    }

    /// What version `number` carried from the one before, by tree and host (none for a
    /// version that carried nothing, or a store made before files were carried).
    package func carriedFiles(version number: Int) throws -> [CarriedFiles] {
        try read { database in
            guard try Self.hasTable(database, "version_carried") else { return [] }
            return try database.rows("""
                SELECT tree, host, carried, postponed, example FROM version_carried WHERE version = ? ORDER BY tree DESC, host
                """, [SQLValue(number)]) {
                CarriedFiles(tree: LinkedTree(rawValue: $0.text(0)) ?? .sprites, host: $0.text(1), carried: $0.int(2),
                             postponed: $0.int(3), example: $0.text(4))
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

    package init(at: String, version: Int, published: Bool, files: [CarriedFiles]) {
        self.at = at
        self.version = version
        self.published = published
        self.files = files
    }
}

/// The shrink guard of the linked files: a host that answers 404 for what the latest
/// version holds must not publish a version without it.
extension Store {
    /// Per tree, the files the latest version holds that the run found missing (404/410)
    /// at their host, when that is more than 5% of them (or all).
    static func vanishedFiles(_ database: Database, run: Int) throws -> [FileShrink] {
        guard let previous = try database.integer("SELECT MAX(number) FROM versions") else { return [] }
        return try LinkedTree.allCases.compactMap { tree in
            let held = try database.integer("SELECT COUNT(*) FROM \(tree.versionTable) WHERE version = ?", [SQLValue(previous)]) ?? 0
            guard held > 0 else { return nil }
            let lost = try database.rows("""
                SELECT f.key, f.fetched FROM frontier f JOIN \(tree.versionTable) v ON v.version = ? AND v.url = f.key
                WHERE f.run = ? AND f.job = ? AND f.state = 'missing' ORDER BY f.path
                """, [SQLValue(previous), SQLValue(run), .text(tree.job)]) { ($0.text(0), $0.optionalText(1)) }
            // More than 5% lost: lost / held > 1/20, in integers.
            guard !lost.isEmpty, lost.count * 20 > held else { return nil }
            return FileShrink(tree: tree, missing: lost.count, previousVersion: previous, previousCount: held,
                              example: lost[0].1 ?? lost[0].0, urls: lost.map(\.0))
        }
    }

    /// After a refusal: the vanished files are asked for again by the next run (a host that
    /// has recovered serves them), and their reports of this run are dropped with them.
    static func requeueVanished(_ database: Database, run: Int, shrinks: [FileShrink]) throws {
        for shrink in shrinks {
            for url in shrink.urls {
                try database.run("UPDATE frontier SET state = 'pending', hash = NULL WHERE run = ? AND job = ? AND key = ?",
                                 [SQLValue(run), .text(shrink.tree.job), .text(url)])
                try database.run("DELETE FROM sprite_reports WHERE run = ? AND version IS NULL AND url = ?",
                                 [SQLValue(run), .text(url)])
            }
        }
    }
}

/// One tree whose held files went missing (404/410) at their host since the latest version.
package struct FileShrink: Sendable, Equatable {
    package var tree: LinkedTree
    package var missing: Int
    package var previousVersion: Int
    package var previousCount: Int
    /// One of them, as it was asked for.
    package var example: String
    var urls: [String]
}

/// A version refused because a linked tree would lose more than 5% of its files to
/// 404s (exit 65): a moved repository or a misconfigured CDN must never reach phones as
/// a delta that deletes their sprites. Nothing is published; the next run asks again,
/// and `--allow-shrink` accepts the loss.
package struct LinkedFilesVanished: PokeSyncFailure {
    package var shrinks: [FileShrink]
    package var exitStatus: ExitStatus { .dataError }
    package var description: String {
        let trees = shrinks.map {
            "\($0.tree.folderName): \($0.missing) of the \($0.previousCount) files in version \($0.previousVersion) "
                + "answered 404/410 at their host (e.g. \($0.example))"
        }
        return trees.joined(separator: "; ") + "; refusing to publish (--allow-shrink to accept)"
    }
}
