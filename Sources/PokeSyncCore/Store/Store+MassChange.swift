import Foundation
import PokeArchive
import PokeSQLite

/// Files of one tree the latest version holds that came back with other bytes on a night
/// when too many of them did: not published (their held bytes are carried) without
/// `--allow-mass-change`. A re-encode upstream and a host answering other valid bytes for
/// everything look the same from here; publishing one is the operator's call.
package struct WithheldFiles: Sendable, Equatable, Codable {
    package var tree: LinkedTree
    /// Files whose new bytes were not published.
    package var changed: Int
    /// Files of the tree the latest version holds.
    package var held: Int
    /// The latest version, whose bytes are kept.
    package var version: Int
    /// One of them, where it was asked.
    package var example: String

    /// `sprites: 1340 of the 1400 files version 3 holds came back with other bytes (96%, more
    /// than 20%): ...`, for the run's last lines and `status`.
    package var line: String {
        let share = FileHostLimits.percent(Double(changed) / Double(max(1, held)))
        return "\(tree.folderName): \(changed) of the \(held) files version \(version) holds came back with other bytes "
            + "(\(share), more than \(FileHostLimits.percent(FileHostLimits.massChangeShare))): version \(version)'s bytes are kept; "
            + "if upstream re-encoded them, the same command with --allow-mass-change publishes them (e.g. \(example))"
    }
}

/// Linked-file bytes a run does not publish as they came: a placeholder, a mass change.
extension Store {
    /// The latest version's files of `tree` by URL (none without a version), read once:
    /// the version tables are keyed by path, so a lookup by URL per file would scan the
    /// version each time (a sprite set is tens of thousands of files).
    static func heldFiles(_ database: Database, tree: LinkedTree) throws -> (version: Int, hashes: [String: [UInt8]])? {
        guard let latest = try Self.newestVersionNumber(database) else { return nil }
        var held: [String: [UInt8]] = [:]
        for (url, hash) in try database.rows("SELECT url, hash FROM \(tree.versionTable) WHERE version = ?",
                                             [SQLValue(latest)], { ($0.text(0), $0.blob(1)) }) {
            held[url] = hash
        }
        return (latest, held)
    }

    /// The latest version's files by tree and URL, for the sprite phase's placeholder check.
    package func heldFiles() throws -> [LinkedTree: [String: SHA256Digest]] {
        try read { database in
            var all: [LinkedTree: [String: SHA256Digest]] = [:]
            for tree in LinkedTree.allCases {
                guard let (_, hashes) = try Self.heldFiles(database, tree: tree) else { continue }
                all[tree] = hashes.compactMapValues { SHA256Digest(bytes: $0) }
            }
            return all
        }
    }

    /// Fails every linked file of `run` stored with the placeholder `hash` from `host`
    /// (carried or postponed at publish, as a failure of the host) and forgets their
    /// validators, so that the next run asks for them whole, not "unchanged" against the
    /// placeholder's ETag.
    /// - Returns: how many were failed.
    @discardableResult
    func refusePlaceholder(run: Int, hash: SHA256Digest, host: String, error: String) throws -> Int {
        try write { database in
            let rows = try database.rows("""
                SELECT job, key, fetched FROM frontier WHERE run = ? AND job IN \(LinkedTree.jobsSQL) AND state = 'done' AND hash = ?
                """, [SQLValue(run), .blob(hash.bytes)]) { ($0.text(0), $0.text(1), $0.optionalText(2)) }
            var refused = 0
            for (job, key, fetched) in rows where fetched.flatMap(CarriedFiles.httpHost) == host {
                try database.run("UPDATE frontier SET state = 'failed', hash = NULL, error = ? WHERE run = ? AND job = ? AND key = ?",
                                 [.text("\(fetched ?? key): \(error)"), SQLValue(run), .text(job), .text(key)])
                try database.run("DELETE FROM validators WHERE key = ?", [.text(key)])
                refused += 1
            }
            return refused
        }
    }

    /// The mass-change guard, at publish: per tree, when more than
    /// ``FileHostLimits/massChangeShare`` of the files the latest version holds (and at
    /// least ``FileHostLimits/massChangeMinimum``) came back with other bytes, those files
    /// keep the latest version's bytes (`withheld`) and their validators are forgotten, so
    /// that each night asks for them whole again until the operator allows the change
    /// (`allow`: `--allow-mass-change`, a one-shot flag, never a standing setting).
    /// Idempotent: a resumed run asks for its withheld files again and decides anew.
    /// - Returns: what was withheld, a tree a line; none with `allow`.
    package func withholdMassChange(run: Int, allow: Bool) throws -> [WithheldFiles] {
        guard !allow else { return [] }
        return try write { database in
            try LinkedTree.allCases.compactMap { tree -> WithheldFiles? in
                guard let (version, held) = try Self.heldFiles(database, tree: tree), !held.isEmpty else { return nil }
                let changed = try database.rows("""
                    SELECT key, hash, fetched FROM frontier WHERE run = ? AND job = ? AND state = 'done' ORDER BY path
                    """, [SQLValue(run), .text(tree.job)]) { ($0.text(0), $0.blob(1), $0.optionalText(2)) }
                    .compactMap { key, hash, fetched in held[key].flatMap { $0 == hash ? nil : (key, $0, fetched) } }
                guard changed.count >= FileHostLimits.massChangeMinimum,
                      Double(changed.count) > FileHostLimits.massChangeShare * Double(held.count) else { return nil }
                for (key, heldHash, _) in changed {
                    try database.run("UPDATE frontier SET state = 'withheld', hash = ? WHERE run = ? AND job = ? AND key = ?",
                                     [.blob(heldHash), SQLValue(run), .text(tree.job), .text(key)])
                    try database.run("DELETE FROM validators WHERE key = ?", [.text(key)])
                }
                return WithheldFiles(tree: tree, changed: changed.count, held: held.count, version: version,
                                     example: changed[0].2 ?? changed[0].0)
            }
        }
    }
}
