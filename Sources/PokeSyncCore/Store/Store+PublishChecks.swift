import Foundation
import PokeSQLite

/// What `publish` checks inside its transaction before a version may appear: that this
/// process still owns the run, that every kind was listed, and that no kind's list
/// shrank past what an upstream outage would look like.
extension Store {
    /// Makes this process the owner of `run`. Another process that later resumes or
    /// discards the run takes it over, and this one can then no longer publish it.
    package func claimRun(_ run: Int, owner: String) throws {
        try setMeta("run_owner", "\(run) \(owner)")
    }

    /// - Throws: `StoreError.runTakenOver` when the run is gone or another process claimed it.
    static func checkOwnership(_ database: Database, run: RunRecord, owner: String, mirror: String) throws {
        let exists = try database.integer("SELECT COUNT(*) FROM runs WHERE id = ?", [SQLValue(run.id)]) ?? 0
        let claimed = try database.row("SELECT value FROM meta WHERE key = 'run_owner'", [], { $0.text(0) })
        guard exists == 1, claimed == "\(run.id) \(owner)" else {
            throw StoreError.runTakenOver(mirror: mirror, mode: run.plan.mode)
        }
    }

    /// The kinds the run mirrors, as resolved when it listed them (the default ten for a
    /// run begun by a build that did not record them).
    static func runKinds(_ database: Database, run: Int) throws -> [ResourceKind] {
        let text = try database.row("SELECT resolved_kinds FROM runs WHERE id = ?", [SQLValue(run)]) { $0.optionalText(0) }
        return (text ?? nil).map(kindList) ?? ResourceKind.defaultKinds
    }

    /// - Throws: `StoreError.corrupt` when a kind has no list in the run (a run must
    ///   never publish from a frontier that lacks a kind: it would remove all of it).
    static func checkListed(_ database: Database, run: Int, display: String) throws {
        let listed = Set(try database.rows("SELECT key FROM frontier WHERE run = ? AND job = 'list' AND state = 'done'",
                                           [SQLValue(run)]) { $0.text(0) })
        let missing = try runKinds(database, run: run).filter { !listed.contains($0.apiName) }
        guard missing.isEmpty else {
            throw StoreError.corrupt(display, "the run has no list of \(missing.map(\.apiName).joined(separator: ", ")) at publish")
        }
    }

    /// A kind's list that lost more than one in this many of the latest version's entries
    /// (5%) is not published without `--allow-shrink`; `--help` says it from here.
    package static let shrinkDivisor = 20

    /// The kinds whose lists in `run` lost more than 5% of the entries (or all of them)
    /// that the latest version holds. A kind the latest version holds and the run does not
    /// mirror is not a shrink when `--kinds` left it out (the user's choice, published as
    /// removed documents); under `--kinds all` it is one (the source's root lost it).
    static func shrunkenLists(_ database: Database, run: RunRecord) throws -> [ListShrink] {
        guard let previous = try Self.newestVersionNumber(database) else { return [] }
        func counts(_ sql: String, _ key: Int) throws -> [String: Int] {
            Dictionary(uniqueKeysWithValues: try database.rows(sql, [SQLValue(key)]) { ($0.text(0), $0.int(1)) })
        }
        let before = try counts("SELECT kind, COUNT(*) FROM version_documents WHERE version = ? GROUP BY kind", previous)
        let now = try counts("SELECT kind, COUNT(*) FROM frontier WHERE run = ? AND job = 'document' GROUP BY kind", run.id)
        var guarded = Set(try runKinds(database, run: run.id))
        if run.plan.kinds == KindSelection.all.description {
            guarded.formUnion(before.keys.map(ResourceKind.init(rawValue:)))
        }
        return guarded.sorted().compactMap { kind in
            let had = before[kind.apiName] ?? 0, has = now[kind.apiName] ?? 0
            // More than 5% lost: (had - has) / had > 1/20, in integers.
            guard had > 0, has == 0 || (had - has) * shrinkDivisor > had else { return nil }
            return ListShrink(kind: kind, listed: has, previousVersion: previous, previousCount: had)
        }
    }

    /// After a refusal: the shrunken kinds are listed again by the next run, so that a
    /// source that has recovered is seen, and its documents fetched.
    static func forgetLists(_ database: Database, run: Int, kinds: [ResourceKind]) throws {
        // The root too: a kind that left it is seen again only when the root is read again.
        try database.run("UPDATE runs SET resolved_kinds = NULL WHERE id = ?", [SQLValue(run)])
        for kind in kinds {
            try database.run("DELETE FROM frontier WHERE run = ? AND job = 'list' AND key = ?",
                             [SQLValue(run), .text(kind.apiName)])
        }
    }
}

/// One kind whose list shrank since the latest version.
package struct ListShrink: Sendable, Equatable {
    package var kind: ResourceKind
    package var listed: Int
    package var previousVersion: Int
    package var previousCount: Int
}
