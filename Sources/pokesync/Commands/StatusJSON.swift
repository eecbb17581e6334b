import Foundation
import PokeSyncCore

/// `pokesync status --json`: the binary (its release and commit), the mirror, its latest
/// version (null when none) with its counts and every sprite report, the run in progress
/// (null when none), and what the last run said about its source.
struct StatusJSON: Encodable {
    /// A version record's fields (a missing optional left out), and its counts.
    struct Latest: Encodable {
        var record: VersionRecord
        var documentsByKind: [String: Int]
        var spritesRefused: Int
        var spritesMissing: Int
        /// Every report, which the run's summary shows only the first 20 of.
        var spriteReports: [SpriteReport]
        /// The cries the version holds and the `--cries` it was made with.
        var cries: Int
        var crySet: String

        enum CodingKeys: String, CodingKey {
            case number, createdAt = "created_at", mode, source, spriteSource = "sprite_source", spriteSet = "sprite_set"
            case deployHash = "deploy_hash", documents, sprites, documentsByKind = "documents_by_kind", cries, crySet = "cry_set"
            case spritesRefused = "sprites_refused", spritesMissing = "sprites_missing", spriteReports = "sprite_reports"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(record.number, forKey: .number)
            try container.encode(record.createdAt, forKey: .createdAt)
            try container.encode(record.mode, forKey: .mode)
            try container.encode(record.source, forKey: .source)
            try container.encodeIfPresent(record.spriteSource, forKey: .spriteSource)
            try container.encode(record.spriteSet, forKey: .spriteSet)
            try container.encodeIfPresent(record.deployHash, forKey: .deployHash)
            try container.encode(record.documents, forKey: .documents)
            try container.encode(record.sprites, forKey: .sprites)
            try container.encode(cries, forKey: .cries)
            try container.encode(crySet, forKey: .crySet)
            try container.encode(documentsByKind, forKey: .documentsByKind)
            try container.encode(spritesRefused, forKey: .spritesRefused)
            try container.encode(spritesMissing, forKey: .spritesMissing)
            try container.encode(spriteReports, forKey: .spriteReports)
        }
    }

    /// The run in progress: its plan, its progress, and how it stands.
    struct Run: Encodable {
        struct Count: Encodable { var done, total: Int }
        struct Ended: Encodable { var status: Int; var reason: String; var at: String }
        var mode: String
        var startedAt: String
        var source: String
        var active: Bool
        var pid: Int?
        var documents: Count
        var sprites: Count
        var failed: Int
        /// running, stopped (it ended by itself, see `ended`) or interrupted (killed).
        var state: String
        var ended: Ended?

        enum CodingKeys: String, CodingKey {
            case mode, startedAt = "started_at", source, active, pid, documents, sprites, failed, state, ended
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(mode, forKey: .mode)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(source, forKey: .source)
            try container.encode(active, forKey: .active)
            try container.encode(pid, forKey: .pid)  // null when no process holds the lock
            try container.encode(documents, forKey: .documents)
            try container.encode(sprites, forKey: .sprites)
            try container.encode(failed, forKey: .failed)
            try container.encode(state, forKey: .state)
            try container.encode(ended, forKey: .ended)
        }
    }

    /// The request rate a bare `sync` keeps to: requests per second (null: no cap) and
    /// where that comes from, or the `mirror.json` error that keeps it from being told.
    struct Rate: Encodable {
        var requestsPerSecond: Double?
        var from: String?
        var error: String?

        enum CodingKeys: String, CodingKey { case requestsPerSecond = "requests_per_second", from, error }

        init(_ result: Result<RateInForce, ConfigError>) {
            switch result {
            case .success(let rate): (requestsPerSecond, from) = (rate.requestsPerSecond, rate.origin.rawValue)
            case .failure(let failure): error = failure.message
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if let error {
                try container.encode(error, forKey: .error)
            } else {
                try container.encode(requestsPerSecond, forKey: .requestsPerSecond)
                try container.encode(from, forKey: .from)
            }
        }
    }

    /// The binary that answers: its release and the commit it was built from (null when
    /// not known), so that an upgrade shows.
    struct Build: Encodable {
        var version = PokeSync.version
        var commit = PokeSync.commit

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(version, forKey: .version)
            try container.encode(commit, forKey: .commit)  // null, not left out
        }

        enum CodingKeys: String, CodingKey { case version, commit }
    }

    var pokesync = Build()
    var mirror: String
    var sourceNotice: String?
    var latest: Latest?
    var run: Run?
    var rate: Rate
    /// The linked files the last run that reached publishing carried or postponed (null: none recorded).
    var lastRunCarried: LastRunCarried?
    /// A mirror folder with no store yet says only its path (no `source_notice`).
    var hasStore = true

    enum CodingKeys: String, CodingKey {
        case pokesync, mirror, sourceNotice = "source_notice", latest, run, rate, lastRunCarried = "last_run_carried"
    }

    /// A mirror folder with no store yet.
    init(mirror: String, rate: Result<RateInForce, ConfigError>) {
        self.mirror = mirror
        self.rate = Rate(rate)
        hasStore = false
    }

    init(_ status: MirrorStatus) {
        mirror = status.mirror
        rate = Rate(status.rate)
        sourceNotice = status.sourceNotice
        lastRunCarried = status.lastRunCarried
        latest = status.latest.map { record in
            Latest(record: record,
                   documentsByKind: Dictionary(uniqueKeysWithValues: status.kinds.map { ($0.key.apiName, $0.value) }),
                   spritesRefused: status.refused, spritesMissing: status.missing,
                   spriteReports: status.reports, cries: status.cries, crySet: status.crySet.description)
        }
        if let run = status.run, let progress = status.runProgress {
            self.run = Run(mode: run.plan.mode.rawValue, startedAt: run.startedAt, source: run.plan.source,
                           active: status.holderPID != nil, pid: status.holderPID.map { Int($0) },
                           documents: .init(done: progress.documentsSettled, total: progress.documentsTotal),
                           sprites: .init(done: progress.spritesSettled, total: progress.spritesTotal),
                           failed: status.runFailures,
                           state: status.holderPID != nil ? "running" : status.ending == nil ? "interrupted" : "stopped",
                           ended: status.ending.map { .init(status: Int($0.status), reason: $0.reason, at: $0.endedAt) })
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pokesync, forKey: .pokesync)
        try container.encode(mirror, forKey: .mirror)
        if hasStore {
            try container.encode(sourceNotice, forKey: .sourceNotice)
            try container.encode(lastRunCarried, forKey: .lastRunCarried)
        }
        try container.encode(latest, forKey: .latest)
        try container.encode(run, forKey: .run)
        try container.encode(rate, forKey: .rate)
    }
}
