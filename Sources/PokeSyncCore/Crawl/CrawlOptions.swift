import Foundation

/// How a `full` or `sync` run crawls.
package struct CrawlOptions: Sendable {
    package var mode: RunMode
    /// Requests in flight at most; the HTTP connection cap is set to the same number.
    package var concurrency: Int
    /// `sync` only: check every document and sprite even when the deploy is unchanged.
    package var revalidate: Bool
    package var sprites: SpriteSet
    /// Which cries of each pokemon the run mirrors (`--cries`).
    package var cries: CrySet
    /// Which kinds the run mirrors (`--kinds`).
    package var kinds: KindSelection
    /// Publish even when a kind's list lost more than 5% of the latest version's entries, and
    /// drop the linked files the latest version holds that answered 404/410 at their host.
    package var allowShrink: Bool
    /// Publish the linked files that came back with other bytes even when more than
    /// ``FileHostLimits/massChangeShare`` of a tree's did, and the same bytes for many
    /// (`--allow-mass-change`: a re-encode upstream, accepted on purpose, for one run).
    package var allowMassChange: Bool

    package init(mode: RunMode, concurrency: Int = MirrorConfig.defaultConcurrency, revalidate: Bool = false, sprites: SpriteSet = .none,
                kinds: KindSelection = .default, allowShrink: Bool = false, cries: CrySet = .none,
                allowMassChange: Bool = false) {
        self.allowMassChange = allowMassChange
        self.kinds = kinds
        self.cries = cries
        self.mode = mode
        self.concurrency = max(1, concurrency)
        self.revalidate = revalidate
        self.sprites = sprites
        self.allowShrink = allowShrink
    }
}

/// Why a run did not publish: the crawl's failures (the source's own are `SourceError`
/// and `HTTPError`).
package enum CrawlError: PokeSyncError {
    /// Some resources still failed after retries. The frontier is kept: the same
    /// command again retries only those.
    case resourcesFailed([(key: String, error: String)])
    /// The document source went silent: the run stopped with its progress kept. `source`
    /// as given (`--source`); `what` it did, e.g. "answered the lists, then no document
    /// for 2 minutes, with 8 requests (ability/1, ...) outstanding".
    case sourceSilent(source: String, what: String)

    package var code: ErrorCode {
        switch self {
        case .resourcesFailed: .resourcesFailed
        case .sourceSilent: .sourceSilent
        }
    }

    package var description: String {
        switch self {
        case .resourcesFailed(let failures):
            let shown = failures.prefix(5).map { "\($0.key) (\($0.error))" }.joined(separator: "; ")
            let more = failures.count > 5 ? "; and \(failures.count - 5) more" : ""
            return "\(failures.count) resource(s) still failed after retries, no version published: \(shown)\(more)"
        case .sourceSilent(let source, let what):
            return "the source \(source) \(what): the run stops here, nothing published; the documents already in are kept and the same command resumes"
        }
    }
}

/// What a finished run did.
package struct CrawlSummary: Sendable {
    package var outcome: PublishOutcome
    package var documentsFetched: Int
    package var documentsUnchanged: Int
    package var spritesFetched: Int
    package var spritesUnchanged: Int
    package var spriteReports: [SpriteReport]
    package var requests: Int
    /// Body bytes decoded, read from folders, and as sent over HTTP where known
    /// (smaller when the server compresses).
    package var transfer: TransferBytes
    /// The one line saying the source sends no validators, when it does not.
    package var sourceNotice: String?
    package var seconds: Double
    /// The published version's diff against the one before (nil for a first version or no change).
    package var diff: VersionDiff?
    package var diffFile: URL?
    /// The cries the published version holds (its sprites are in its record).
    package var cries = 0
    /// Linked files whose host failed this run: carried from the latest version, or left
    /// for the next run; by tree and host. Not empty: the run exits ``ExitStatus/filesCarried``.
    package var carried: [CarriedFiles] = []
    /// Files the latest version held that `--allow-shrink` let go (404/410 at their host), by tree.
    package var dropped: [DroppedFiles] = []
    /// Files the latest version holds whose new bytes were not published: too many of their
    /// tree changed (``Store/withholdMassChange(run:allow:)``). Not empty: exit 2.
    package var withheld: [WithheldFiles] = []
}
