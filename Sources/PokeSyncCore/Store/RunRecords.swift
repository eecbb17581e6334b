import Foundation
import PokeArchive

/// `full` fetches everything unconditionally; `sync` revalidates what the store has.
package enum RunMode: String, Sendable, Codable {
    case full, sync
}

/// What a run was asked to do; a killed run resumes only with the same plan.
package struct RunPlan: Sendable, Equatable {
    package var mode: RunMode
    package var source: String
    package var spriteSource: String?
    package var spriteSet: String
    package var revalidate: Bool
    /// `--kinds` as asked (`default`, `all`, `item,machine`).
    package var kinds: String
    /// `--cries` (`none`, `latest`, `legacy`, `all`) and `--cry-source` as resolved.
    package var cries: String
    package var crySource: String?

    package init(mode: RunMode, source: String, spriteSource: String?, spriteSet: String, revalidate: Bool,
                 kinds: String = "default", cries: String = "none", crySource: String? = nil) {
        self.kinds = kinds
        self.cries = cries
        self.crySource = crySource
        self.mode = mode
        self.source = source
        self.spriteSource = spriteSource
        self.spriteSet = spriteSet
        self.revalidate = revalidate
    }
}

/// The run in progress, as the store records it.
package struct RunRecord: Sendable {
    package var id: Int
    package var plan: RunPlan
    package var startedAt: String
    package var deployHash: String?
    /// The latest version when the run started: what `sync` compares against.
    package var baseVersion: Int?
    /// What `plan.kinds` resolved to (for `all`, what the source's root listed), once it
    /// was; a resumed run keeps it.
    package var resolvedKinds: [ResourceKind]?
    /// The endpoints the source's root listed when the run read it (`--kinds` other than
    /// `default`): part of the upstream state a resumed run compares
    /// (<doc:PokeSyncCore/MirrorFolder#One-upstream-state>).
    package var rootEndpoints: [String]? = nil
}

/// How the last attempt at the unfinished run ended, when it did not publish: what
/// `status` says instead of "interrupted", which only a kill or power cut leaves.
package struct RunEnding: Sendable, Codable, Equatable {
    /// The run it is about; an ending of another run is stale.
    package var run: Int
    /// The exit code it ended with (1, 65, 69, 74, 130...).
    package var status: Int32
    /// One line: "failed: 3 resource(s) still failed after retries", "source unavailable: ...".
    package var reason: String
    package var endedAt: String

    package init(run: Int, status: ExitStatus, reason: String, endedAt: String = Timestamp.now()) {
        self.run = run
        self.status = status.rawValue
        self.reason = reason
        self.endedAt = endedAt
    }

    /// The line for an error that ended a run, by its exit code.
    package static func reason(for error: any Error) -> (ExitStatus, String) {
        let status = ExitStatus(for: error)
        if status == .interrupted { return (status, "interrupted (Ctrl-C or a signal)") }
        let text = String((error as? any PokeSyncError)?.description ?? "\(error)").prefix(400)
        if case .resourcesFailed(let failures)? = error as? CrawlError {
            return (status, "failed: \(failures.count) resource(s) still failed after retries")
        }
        switch status {
        case .unavailable: return (status, "source unavailable: \(text)")
        case .ioError: return (status, "I/O error: \(text)")
        case .dataError: return (status, "bad data: \(text)")
        default: return (status, "failed: \(text)")
        }
    }
}

extension Store {
    static let runEndingKey = "last_run_ending"

    /// Records how an attempt at `run` ended without publishing.
    package func recordRunEnding(_ ending: RunEnding) throws {
        let data = try JSONEncoder().encode(ending)
        try setMeta(Self.runEndingKey, String(decoding: data, as: UTF8.self))
    }

    /// How the last attempt at `run` ended, if one was recorded for it.
    package func runEnding(run: Int) throws -> RunEnding? {
        guard let text = try meta(Self.runEndingKey),
              let ending = try? JSONDecoder().decode(RunEnding.self, from: Data(text.utf8)), ending.run == run else { return nil }
        return ending
    }
}

/// Where a frontier job stands.
package enum JobState: String, Sendable, CaseIterable {
    case pending
    /// Fetched, new content stored.
    case done
    /// The source said 304, or the deploy had not changed: the known content stands.
    case unchanged
    /// Failed after every retry; the run cannot publish until it succeeds.
    case failed
    /// A sprite the upstream does not have (404): a normal outcome, recorded.
    case missing
    /// A sprite URL that was refused (foreign host, path escape, a clashing path).
    case refused
    /// A linked file whose host failed (timeouts, 5xx, resets, TLS, a wrong type) that the
    /// latest version holds: its bytes there are carried into the next version unchanged.
    case carried
    /// A linked file whose host failed that no version holds: it stays out of the next
    /// version (serve keeps upstream's link) and is asked for again by the next run.
    case postponed
    /// A linked file the latest version holds that its host answered 404/410 for, while a
    /// document still links it: carried with its bytes like `carried`, counted as missing at
    /// its host, every night until the documents stop linking it or `--allow-shrink` drops it.
    case vanished
    /// A linked file the latest version holds that came back with other bytes on a night
    /// when more than ``FileHostLimits/massChangeShare`` of its tree did, without
    /// `--allow-mass-change`: its bytes there are carried, the new ones not published.
    case withheld

    /// States that still need work when a run is resumed (a carried, postponed, vanished or
    /// withheld file is asked for again: its host may be back, the operator may allow it).
    package static let unfinished: [JobState] = [.pending, .failed, .carried, .postponed, .vanished, .withheld]
    /// The states of the linked files a version holds, as an SQL list.
    static let inVersionSQL = "('done', 'unchanged', 'carried', 'vanished', 'withheld')"
    /// States that let a run publish.
    package var isSettled: Bool { self != .pending && self != .failed }
}

/// A document still to fetch.
package struct DocumentJob: Sendable, Hashable {
    package var kind: ResourceKind
    package var id: Int
    package var name: String?
    /// What the store kept from the last fetch of this document.
    package var validators: Validators?
    package var knownHash: SHA256Digest?
    /// What this run settled the document as before upstream changed and it was queued
    /// again to be re-checked; nil for a document the run has not settled yet.
    package var settledHash: SHA256Digest? = nil

    package var key: String { kind.documentKey(id: id) }
}

/// A sprite still to fetch: deduplicated by URL across documents.
package struct SpriteJob: Sendable, Hashable {
    package var url: String
    /// Its place in its tree, e.g. `pokemon/25.png` (below `sprites/`).
    package var path: String
    /// The first document that named it ("pokemon/25"), for reports.
    package var document: String
    package var validators: Validators?
    package var knownHash: SHA256Digest?
    /// The tree it goes in: a sprite, or a cry.
    package var tree: LinkedTree = .sprites
}

/// A sprite URL that was skipped, with the document that named it.
package struct SpriteReport: Sendable, Hashable, Codable {
    /// Why a sprite is not in the tree; stored as its raw value.
    package enum Outcome: String, Sendable, Hashable, Codable {
        /// The upstream does not have it (404): a normal outcome, recorded.
        case missing
        /// A sprite URL or body that was refused (foreign host, path escape, wrong type).
        case refused
    }

    package var url: String
    package var document: String
    package var outcome: Outcome
    package var reason: String

    package init(url: String, document: String, outcome: Outcome, reason: String) {
        self.url = url
        self.document = document
        self.outcome = outcome
        self.reason = reason
    }
}

/// How far a run has got, per job type and state.
package struct RunProgress: Sendable {
    package var documents: [ResourceKind: [JobState: Int]] = [:]
    package var sprites: [JobState: Int] = [:]
    package var listedKinds: Set<ResourceKind> = []

    package func documentCount(_ kind: ResourceKind, settledOnly: Bool) -> Int {
        (documents[kind] ?? [:]).filter { !settledOnly || $0.key.isSettled }.values.reduce(0, +)
    }
    package var documentsTotal: Int { documents.keys.reduce(0) { $0 + documentCount($1, settledOnly: false) } }
    package var documentsSettled: Int { documents.keys.reduce(0) { $0 + documentCount($1, settledOnly: true) } }
    package var spritesTotal: Int { sprites.values.reduce(0, +) }
    package var spritesSettled: Int { sprites.filter { $0.key.isSettled }.values.reduce(0, +) }
}

/// Timestamps as ISO 8601 UTC, second precision.
package enum Timestamp {
    package static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }
}
