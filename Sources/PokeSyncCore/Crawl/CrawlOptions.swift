import Foundation

/// How a `full` or `sync` run crawls.
public struct CrawlOptions: Sendable {
    public var mode: RunMode
    /// Requests in flight at most; the HTTP connection cap is set to the same number.
    public var concurrency: Int
    /// `sync` only: check every document and sprite even when the deploy is unchanged.
    public var revalidate: Bool
    public var sprites: SpriteSet
    /// Publish even when a kind's list lost more than 5% of the latest version's entries.
    public var allowShrink: Bool

    public init(mode: RunMode, concurrency: Int = 8, revalidate: Bool = false, sprites: SpriteSet = .none,
                allowShrink: Bool = false) {
        self.mode = mode
        self.concurrency = max(1, concurrency)
        self.revalidate = revalidate
        self.sprites = sprites
        self.allowShrink = allowShrink
    }
}

/// Why a run did not publish.
public enum CrawlError: PokeSyncFailure {
    /// Some resources still failed after retries. The frontier is kept: the same
    /// command again retries only those.
    case resourcesFailed([(key: String, error: String)])

    public var exitStatus: ExitStatus { .resourcesFailed }

    public var description: String {
        switch self {
        case .resourcesFailed(let failures):
            let shown = failures.prefix(5).map { "\($0.key) (\($0.error))" }.joined(separator: "; ")
            let more = failures.count > 5 ? "; and \(failures.count - 5) more" : ""
            return "\(failures.count) resource(s) still failed after retries, no version published: \(shown)\(more)"
        }
    }
}

/// What a finished run did.
public struct CrawlSummary: Sendable {
    public var outcome: PublishOutcome
    public var documentsFetched: Int
    public var documentsUnchanged: Int
    public var spritesFetched: Int
    public var spritesUnchanged: Int
    public var spriteReports: [SpriteReport]
    public var requests: Int
    /// Body bytes decoded, and as sent (smaller when the server compresses).
    public var bodyBytes: Int
    public var wireBytes: Int
    /// The one line saying the source sends no validators, when it does not.
    public var sourceNotice: String?
    public var seconds: Double
    /// The published version's diff against the one before (nil for a first version or no change).
    public var diff: VersionDiff?
    public var diffFile: URL?
}
