import Foundation
import PokeArchive
import PokeSQLite

/// A newer upstream state than the one the run recorded: what it lists and says of itself now.
package struct UpstreamChange: Sendable {
    /// Every list read again, by kind.
    package var lists: [ResourceKind: [ListedResource]]
    /// The deploy hash upstream sends now (nil: none).
    package var deployHash: String?
    /// The root's endpoints now, when the run reads the root.
    package var rootEndpoints: [String]?
    /// What `--kinds` resolves to on the new root, when that is not what the run recorded:
    /// the documents of kinds no longer in it leave the run.
    package var resolvedKinds: [ResourceKind]?
}

extension Store {
    /// Records the root's endpoints the run read, part of the state a resumed run compares.
    package func setRootEndpoints(run: Int, _ endpoints: [String]) throws {
        try write { database in
            try database.run("UPDATE runs SET root_endpoints = ? WHERE id = ?",
                             [.text(endpoints.joined(separator: ",")), SQLValue(run)])
        }
    }

    /// Each list's fingerprint as the run recorded it; nil for a list recorded by a build
    /// that kept none.
    package func listFingerprints(run: Int) throws -> [ResourceKind: SHA256Digest?] {
        try read { database in
            let rows = try database.rows("SELECT key, hash FROM frontier WHERE run = ? AND job = 'list'", [SQLValue(run)]) {
                (ResourceKind(rawValue: $0.text(0)), $0.optionalBlob(1).flatMap { SHA256Digest(bytes: $0) })
            }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Upstream is not the state the run's documents were settled against: records the new
    /// state (its lists, deploy hash, root) as the run's, and queues every document the run
    /// had settled again, to be re-checked against it (``DocumentJob/settledHash`` keeps
    /// what it was), in one transaction, so that a kill at any moment leaves either the old
    /// state and nothing queued, or the new one and every document queued. The run's linked
    /// files and their reports are forgotten: the documents queue those they name again when
    /// they settle (a file that only the old content named must not be published).
    /// - Returns: how many documents were queued again.
    package func recheck(run: Int, against change: UpstreamChange) throws -> Int {
        try write { database in
            let runID = SQLValue(run)
            if let kinds = change.resolvedKinds, !kinds.isEmpty {
                let names = kinds.map(\.apiName)
                let kept = names.map { _ in "?" }.joined(separator: ",")
                try database.run("DELETE FROM frontier WHERE run = ? AND job = 'document' AND kind NOT IN (\(kept))",
                                 [runID] + names.map { .text($0) })
                try database.run("DELETE FROM frontier WHERE run = ? AND job = 'list' AND key NOT IN (\(kept))",
                                 [runID] + names.map { .text($0) })
                try database.run("UPDATE runs SET resolved_kinds = ? WHERE id = ?", [.text(names.joined(separator: ",")), runID])
            }
            for (kind, list) in change.lists {
                try Self.recordList(database, run: run, list, kind: kind)
            }
            try database.run("UPDATE runs SET deploy_hash = ?, root_endpoints = coalesce(?, root_endpoints) WHERE id = ?",
                             [SQLValue(change.deployHash), SQLValue(change.rootEndpoints?.joined(separator: ",")), runID])
            try database.run("UPDATE frontier SET state = 'pending', error = NULL WHERE run = ? AND job = 'document' AND state IN ('done', 'unchanged')",
                             [runID])
            let requeued = database.changes
            try database.run("DELETE FROM frontier WHERE run = ? AND job IN \(LinkedTree.jobsSQL)", [runID])
            try database.run("DELETE FROM sprite_reports WHERE run = ? AND version IS NULL", [runID])
            return requeued
        }
    }
}

extension ListedResource {
    /// A list's fingerprint: SHA-256 of its entries in order, one `id<TAB>name` line each
    /// (an entry without a name has an empty one). Two readings of a list with the same
    /// fingerprint name the same resources, by the same names, in the same order.
    package static func fingerprint(of list: [ListedResource]) -> SHA256Digest {
        var text = ""
        for entry in list {
            text += "\(entry.id)\t\(entry.name ?? "")\n"
        }
        return SHA256.hash(Array(text.utf8))
    }
}
