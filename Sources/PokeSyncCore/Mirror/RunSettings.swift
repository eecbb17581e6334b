import Foundation

/// Everything a `full` or `sync` needs, from the command line over `mirror.json`.
///
/// The mirror's choices (``MirrorChoices``) that neither gives are nil here: the run
/// takes them from the latest version once it holds the lock (``choices(latest:)``).
package struct RunSettings: Sendable {
    package var mode: RunMode
    /// `--source` or `"source"`; nil keeps the latest version's.
    package var source: String?
    /// `--sprite-source` or `"sprite_source"` as given (upstream's address means upstream).
    package var spriteSource: String?
    package var sprites: SpriteSet?
    /// `--kinds`, when given (command line or mirror.json); nil keeps the latest version's.
    package var kinds: KindSelection?
    /// `--cries`, when given (command line or mirror.json); nil keeps the latest version's.
    package var cries: CrySet?
    package var crySource: String?
    package var concurrency: Int
    /// `--rate` or `"rate"`; nil: ``politeRate`` when the run reaches pokeapi.co or its
    /// file hosts, else no cap (``rate(for:)``).
    package var rate: Double?
    package var allowHosts: [String]
    package var timeoutSeconds: Int
    package var retry: RetryPolicy
    package var revalidate: Bool
    package var contact: String?
    /// `--allow-shrink`: publish even when a kind's list shrank by more than 5%, drop the
    /// linked files the latest version holds that answered 404/410 at their host, and let
    /// a command line narrow the mirror (``MirrorNarrowing``).
    package var allowShrink = false
    /// `--allow-mass-change`: publish the linked files that came back with other bytes even
    /// when more than ``FileHostLimits/massChangeShare`` of a tree's did. A flag of one
    /// command, never read from `mirror.json`: a nightly job must not accept the next one.
    package var allowMassChange = false
    /// The `mirror.json` the settings were read from (``MirrorConfig/exists`` false when
    /// the mirror has none: its first run writes one).
    package var config: MirrorConfig
    /// The `mirror.json` keys the command line gave, with their values, which the run
    /// records in `mirror.json` where it names another value (``MirrorConfigFile``).
    package var givenOnCommandLine: [String: String] = [:]

    /// Requests per second against pokeapi.co and its file hosts when neither `--rate` nor
    /// `mirror.json` says: PokeAPI names no number (its fair-use policy asks clients to cache
    /// and to limit how often they ask), so this is pokesync's own, the value the shipped
    /// `mirror.json` has always had.
    package static let politeRate = 20.0
    /// ``politeRate`` as the help and the run's lines say it: `20`.
    package static let politeRateText = ConfigReader.format(politeRate)

    package init(mode: RunMode, config: MirrorConfig) throws {
        self.mode = mode
        self.config = config
        source = config.source
        spriteSource = config.spriteSource
        sprites = try config.sprites.map(SpriteSet.init(parsing:))
        kinds = try config.kinds.map(KindSelection.init(parsing:))
        cries = try config.cries.map(CrySet.init(parsing:))
        crySource = config.crySource
        concurrency = config.concurrency
        rate = config.rate
        allowHosts = config.allowHosts
        timeoutSeconds = config.timeoutSeconds
        retry = RetryPolicy(maxAttempts: max(1, config.retry.attempts),
                            baseDelay: .milliseconds(config.retry.baseDelayMs), maxDelay: RetryPolicy.defaultMaxDelay)
        revalidate = false
        contact = config.contact
    }

    package var userAgent: String { PokeSync.userAgent(contact: contact) }

    /// Each choice given (command line, then `mirror.json`), else the latest version's,
    /// else a new mirror's default.
    package func choices(latest: MirrorChoices?) -> MirrorChoices {
        let fallback = latest ?? .defaults
        return MirrorChoices(
            source: source ?? fallback.source,
            spriteSource: spriteSource.map { MirrorChoices.linkedSource($0, tree: .sprites) } ?? fallback.spriteSource,
            sprites: sprites ?? fallback.sprites,
            kinds: kinds ?? fallback.kinds,
            cries: cries ?? fallback.cries,
            crySource: crySource.map { MirrorChoices.linkedSource($0, tree: .cries) } ?? fallback.crySource)
    }

    /// The rate in force for a run with `choices`, and where it comes from.
    package func rate(for choices: MirrorChoices) -> RateInForce {
        RateInForce(given: rate, fromCommandLine: givenOnCommandLine["rate"] != nil, choices: choices)
    }
}

/// The request rate a run keeps to, and why: `status` and the run's first lines say it.
package struct RateInForce: Sendable, Equatable {
    /// Requests per second at most; nil for no cap.
    package var requestsPerSecond: Double?
    package var origin: Origin

    package enum Origin: String, Sendable {
        /// `--rate`.
        case commandLine = "command line"
        /// `"rate"` in `mirror.json`.
        case mirrorJSON = "mirror.json"
        /// ``RunSettings/politeRate``: the run reaches pokeapi.co or its file hosts.
        case polite = "default for pokeapi.co"
        /// A local or self-hosted source, nothing upstream: no cap unless asked.
        case none = "default"
    }

    package init(given: Double?, fromCommandLine: Bool, choices: MirrorChoices) {
        if let given {
            requestsPerSecond = given
            origin = fromCommandLine ? .commandLine : .mirrorJSON
        } else if choices.reachesPokeAPI {
            requestsPerSecond = RunSettings.politeRate
            origin = .polite
        } else {
            requestsPerSecond = nil
            origin = .none
        }
    }

    /// "20 requests/s (default for pokeapi.co)", "no cap (default)".
    package var description: String {
        let value = requestsPerSecond.map { "\(ConfigReader.format($0)) requests/s" } ?? "no cap"
        return "\(value) (\(origin.rawValue))"
    }
}
