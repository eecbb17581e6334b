import Foundation

/// Everything a `full` or `sync` needs, from `mirror.json` and the command line.
package struct RunSettings: Sendable {
    package var mode: RunMode
    package var source: String
    package var spriteSource: String?
    package var sprites: SpriteSet
    /// `--kinds`, when given (command line or mirror.json); nil keeps the latest version's.
    package var kinds: KindSelection?
    /// `--cries`, when given (command line or mirror.json); nil keeps the latest version's.
    package var cries: CrySet?
    package var crySource: String?
    package var concurrency: Int
    package var rate: Double?
    package var allowHosts: [String]
    package var timeoutSeconds: Int
    package var retry: RetryPolicy
    package var revalidate: Bool
    package var contact: String?
    /// `--allow-shrink`: publish even when a kind's list shrank by more than 5%.
    package var allowShrink = false

    package init(mode: RunMode, config: MirrorConfig) throws {
        self.mode = mode
        source = config.source
        spriteSource = config.spriteSource
        sprites = try SpriteSet(parsing: config.sprites)
        kinds = try config.kinds.map(KindSelection.init(parsing:))
        cries = try config.cries.map(CrySet.init(parsing:))
        crySource = config.crySource
        concurrency = config.concurrency
        rate = config.rate
        allowHosts = config.allowHosts
        timeoutSeconds = config.timeoutSeconds
        retry = RetryPolicy(maxAttempts: max(1, config.retry.attempts),
                            baseDelay: .milliseconds(config.retry.baseDelayMs), maxDelay: .seconds(30))
        revalidate = false
        contact = config.contact
    }

    package var userAgent: String { PokeSync.userAgent(contact: contact) }
}
