import Foundation

/// Everything a `full` or `sync` needs, from `mirror.json` and the command line.
public struct RunSettings: Sendable {
    public var mode: RunMode
    public var source: String
    public var spriteSource: String?
    public var sprites: SpriteSet
    public var concurrency: Int
    public var rate: Double?
    public var allowHosts: [String]
    public var timeoutSeconds: Int
    public var retry: RetryPolicy
    public var revalidate: Bool
    public var contact: String?
    /// `--allow-shrink`: publish even when a kind's list shrank by more than 5%.
    public var allowShrink = false

    public init(mode: RunMode, config: MirrorConfig) throws {
        self.mode = mode
        source = config.source
        spriteSource = config.spriteSource
        sprites = try SpriteSet(parsing: config.sprites)
        concurrency = config.concurrency
        rate = config.rate
        allowHosts = config.allowHosts
        timeoutSeconds = config.timeoutSeconds
        retry = RetryPolicy(maxAttempts: max(1, config.retry.attempts),
                            baseDelay: .milliseconds(config.retry.baseDelayMs), maxDelay: .seconds(30))
        revalidate = false
        contact = config.contact
    }

    public var userAgent: String { PokeSync.userAgent(contact: contact) }
}
