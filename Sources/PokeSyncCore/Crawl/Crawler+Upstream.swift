import Foundation
import PokeArchive
import PokeLocking

/// When a run reads upstream again to compare it with the state it recorded.
enum UpstreamMoment {
    /// Resuming an interrupted run, before fetching anything.
    case resumed
    /// Once the run's documents are all in, before publishing.
    case ended
}

/// What a reading of upstream found different from the state the run recorded.
struct UpstreamDifference {
    /// One phrase a difference: "deploy 3f2a -> 9c1d", "the lists of pokemon, version".
    var found: [String] = []
    /// Nothing found, but nothing to tell by either: the source sends no deploy hash.
    var unidentified = false

    var changed: Bool { !found.isEmpty || unidentified }
}

extension Crawler {
    /// How often a run re-checks its documents because upstream changed while it ran
    /// before it gives up (exit 69, nothing published; the next run resumes).
    static let upstreamRounds = 3

    /// Fetches the run's unfinished documents, then reads upstream again: when it is no
    /// longer the state the run started from (a deploy while the run ran), every document
    /// is re-checked against the new state, and upstream read again, until two readings agree.
    /// - Throws: `SourceError` (69) when upstream changes in every one of `upstreamRounds`
    ///   rounds; what `DocumentPhase` and the readings throw.
    func fetchDocumentsOfOneState(run: RunRecord, shortcut: Bool, watch: SourceWatch?) async throws {
        var asked = try await DocumentPhase(crawler: self, run: run, shortcut: shortcut, watch: watch).run()
        var rounds = 0
        // A run that asked the source for no document (its deploy unchanged, nothing new)
        // holds the base version's documents and the lists it read: one state already.
        while asked > 0, try await recheckIfUpstreamChanged(run: run.id, at: .ended) {
            rounds += 1
            guard rounds < Self.upstreamRounds else {
                throw SourceError(resource: source.description,
                                  reason: "upstream changed again while this run re-checked its documents (\(rounds) times): "
                                      + "nothing published; the next run resumes and checks again")
            }
            try refreshProgress(run: run.id)
            progress.begin(phase: .documents)
            asked = try await DocumentPhase(crawler: self, run: run, shortcut: false, watch: watch).run()
        }
    }

    /// Reads upstream again (the root when `--kinds` reads it, every list the run recorded)
    /// and compares it with the state the run recorded. When it differs, or cannot be shown
    /// the same when resuming (no deploy hash to compare), the new state becomes the run's
    /// and every document the run had settled is queued again, to be re-checked
    /// conditionally (``DocumentPhase``), which is said in one line.
    /// - Returns: whether upstream changed (or may have): documents may be pending again.
    func recheckIfUpstreamChanged(run: Int, at moment: UpstreamMoment) async throws -> Bool {
        guard let recorded = try store.currentRun(), recorded.id == run, let kinds = recorded.resolvedKinds else { return false }
        progress.begin(phase: .listing)
        let hashes = Locked<[String]>([])
        var difference = UpstreamDifference()
        var root: [String]?
        var resolved = kinds
        if options.kinds != .default {
            do {
                let index = try await source.rootIndex()
                progress.addRequestBytes(index.bodyBytes, wire: index.wire)
                if let deploy = index.deployHash { hashes.withLock { $0.append(deploy) } }
                root = index.endpoints
                resolved = try options.kinds.resolve(root: index.endpoints)
                if let before = recorded.rootEndpoints, before != index.endpoints {
                    difference.found.append("the root's endpoints")
                }
            } catch where !options.kinds.needsRoot && !isFatalToRun(error) {
                // As when the run began: a comma list is checked against a root when there is one.
            }
        }
        let fingerprints = try store.listFingerprints(run: run)
        let listed = resolved.filter { $0.isListed && fingerprints[$0] != nil }
        let lists = Locked<[ResourceKind: [ListedResource]]>([:])
        try await forEachConcurrently(listed, limit: options.concurrency) { kind in
            let list = try await source.list(kind)
            progress.addTransfer(list.transfer)
            if let deploy = list.deployHash { hashes.withLock { $0.append(deploy) } }
            lists.withLock { $0[kind] = list.resources }
        }
        let read = lists.withLock { $0 }
        // A run an older build began kept no fingerprints: nothing to compare, so changed.
        if listed.contains(where: { fingerprints[$0] == .some(nil) }) {
            difference.found.append("the interrupted run kept no fingerprint of its lists (an older pokesync began it)")
        }
        let changedLists = listed.filter {
            guard let recorded = fingerprints[$0] ?? nil else { return false }
            return recorded != read[$0].map(ListedResource.fingerprint(of:))
        }
        if !changedLists.isEmpty {
            let names = changedLists.prefix(5).map(\.apiName).joined(separator: ", ")
            difference.found.append("the lists of \(names)" + (changedLists.count > 5 ? " and \(changedLists.count - 5) more" : ""))
        }
        var seen: [String] = []
        for hash in hashes.withLock({ $0 }) where !seen.contains(hash) { seen.append(hash) }
        if seen.count > 1 { difference.found.append("the deploy hash changed while read (\(seen.joined(separator: ", ")))") }
        switch (recorded.deployHash, seen.first) {
        case let (before?, now?) where before != now: difference.found.append("deploy hash \(before) -> \(now)")
        case (_?, nil): difference.found.append("no deploy hash sent any more")
        case (nil, _?): difference.found.append("a deploy hash sent now")
        case (nil, nil): difference.unidentified = moment == .resumed
        default: break
        }
        guard difference.changed else { return false }
        let change = UpstreamChange(lists: read, deployHash: seen.first, rootEndpoints: root,
                                    resolvedKinds: resolved != kinds ? resolved : nil)
        let requeued = try store.recheck(run: run, against: change)
        // Kinds the new root added, and the encounters of the pokemon list as it is now.
        _ = try await listKinds(run: try store.currentRun() ?? recorded)
        if requeued > 0 { log(Self.recheckLine(difference, at: moment, documents: requeued)) }
        return true
    }

    /// The one line a re-check is announced with.
    static func recheckLine(_ difference: UpstreamDifference, at moment: UpstreamMoment, documents: Int) -> String {
        let what = "re-checking \(documents) document\(documents == 1 ? "" : "s")"
        switch moment {
        case .resumed where difference.found.isEmpty:
            return "upstream cannot be shown unchanged since the interrupted run began (it sends no deploy hash, "
                + "X-PokeAPI-Hash): \(what)"
        case .resumed:
            return "upstream changed since the interrupted run began (\(difference.found.joined(separator: "; "))): \(what)"
        case .ended:
            return "upstream changed while this run ran (\(difference.found.joined(separator: "; "))): \(what) before publishing"
        }
    }
}
