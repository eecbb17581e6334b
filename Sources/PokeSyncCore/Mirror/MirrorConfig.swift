import Foundation
import PokedexReader

/// `mirror.json`: a mirror's settings. Command-line options override them; the choices
/// that make the mirror what it is (source, linked-file sources and sets, kinds) that
/// neither gives are the latest version's (``MirrorChoices``).
///
/// Every key is checked as strictly as its command-line option: a wrong type, a value
/// out of range or an unknown key (a typo) is a usage error (64) naming the key.
package struct MirrorConfig: Sendable, Equatable {
    /// `--source`; nil: the latest version's (pokeapi.co for a new mirror).
    package var source: String?
    /// `--sprite-source`; nil: the latest version's (upstream for a new mirror).
    package var spriteSource: String?
    /// `--sprites`; nil: the latest version's (`default` for a new mirror).
    package var sprites: String?
    /// `--kinds`: `default`, `all` or a comma list of endpoint names; nil: what the
    /// mirror's latest version was made with (`default` for a new mirror).
    package var kinds: String?
    /// `--cries`: `none`, `latest`, `legacy` or `all`; nil: what the mirror's latest
    /// version was made with (`none` for a new mirror).
    package var cries: String?
    /// `--cry-source`: where cry bytes come from (a URL or a clone of PokeAPI/cries).
    package var crySource: String?
    package var concurrency: Int = MirrorConfig.defaultConcurrency
    /// Requests per second at most; nil: the polite default when the run reaches
    /// pokeapi.co or its file hosts (``RunSettings/politeRate``), else no cap.
    package var rate: Double?
    package var allowHosts: [String] = []
    package var timeoutSeconds: Int = HTTPClientConfiguration.defaultTimeout
    package var retry = Retry()
    package var retention = Retention()
    package var bundles = Bundles()
    /// Added to the User-Agent so that the API's operators can reach you.
    package var contact: String?
    /// Whether the mirror has a `mirror.json` (a new mirror's first run writes one).
    package var exists = true

    package struct Retry: Sendable, Equatable {
        package var attempts = RetryPolicy.defaultAttempts
        package var baseDelayMs = Int(RetryPolicy.defaultBaseDelay / .milliseconds(1))
        package init() {}
    }

    package struct Retention: Sendable, Equatable {
        /// Versions `prune` keeps (the nightly job prunes to this).
        package var keep: Int = 14
        package init() {}
    }

    package struct Bundles: Sendable, Equatable {
        /// How long a bundle file the index stops naming is kept (CDNs serve cached indexes).
        package var graceHours = Double(defaultGraceHours)
        /// `graceHours` when mirror.json gives none (`export`'s help shows it).
        package static let defaultGraceHours = 48
        /// `export`'s `--sprites` when the command line gives none (the nightly job's profile).
        package var sprites: String = "default"
        /// `export`'s `--languages` when the command line gives none; nil for every language.
        package var languages: [String]?
        package init() {}
    }

    /// Requests in flight at most when neither `--concurrency` nor `mirror.json` says.
    package static let defaultConcurrency = 8
    /// The limits shared by `mirror.json` and the command line.
    package static let concurrencyRange = 1...256
    package static let rateRange = 0.001...100_000.0
    package static let timeoutRange = 1...3600
    package static let attemptsRange = 1...100
    package static let baseDelayRange = 0...60_000

    package init() {}

    /// Reads `mirror.json`; a mirror without one uses the defaults (``exists`` is false).
    /// - Throws: `ConfigError` (64) naming the file and the key when it is not valid;
    ///   `LocalFileError` (74) when it exists but cannot be read.
    package static func load(_ layout: MirrorLayout) throws -> MirrorConfig {
        let file = layout.configFile
        let name = layout.display(file)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            var absent = MirrorConfig()
            absent.exists = false
            return absent
        }
        guard !isDirectory.boolValue else { throw ConfigError("\(name) is a folder, not a configuration file") }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw LocalFileError(path: file.path, reason: "cannot read (no permission?)")
        }
        return try parse(data, name: name)
    }

    /// - Throws: `ConfigError` naming `name` and the key.
    package static func parse(_ data: Data, name: String) throws -> MirrorConfig {
        let value: ConfigValue
        do { value = try JSONDecoder().decode(ConfigValue.self, from: data) } catch {
            throw ConfigError("\(name) is not valid JSON: \(describe(error))")
        }
        guard case .object(let members) = value else { throw ConfigError("\(name) must hold a JSON object of settings") }
        var reader = ConfigReader(members: members, prefix: "", file: name)
        var config = MirrorConfig()
        if let source = try reader.string("source") { config.source = source }
        config.spriteSource = try reader.string("sprite_source")
        if let sprites = try reader.string("sprites") {
            do { _ = try SpriteSet(parsing: sprites) } catch let error as RequestError {
                throw ConfigError("\(name): \"sprites\": \(error)")
            }
            config.sprites = sprites
        }
        config.crySource = try reader.string("cry_source")
        if let cries = try reader.string("cries") {
            do { _ = try CrySet(parsing: cries) } catch let error as RequestError {
                throw ConfigError("\(name): \"cries\": \(error)")
            }
            config.cries = cries
        }
        if let kinds = try reader.string("kinds") {
            do { _ = try KindSelection(parsing: kinds) } catch let error as RequestError {
                throw ConfigError("\(name): \"kinds\": \(error)")
            }
            config.kinds = kinds
        }
        if let concurrency = try reader.integer("concurrency", concurrencyRange) { config.concurrency = concurrency }
        config.rate = try reader.number("rate", rateRange)
        if let hosts = try reader.strings("allow_hosts") { config.allowHosts = hosts }
        if let timeout = try reader.integer("timeout_seconds", timeoutRange) { config.timeoutSeconds = timeout }
        if var retry = try reader.object("retry") {
            if let attempts = try retry.integer("attempts", attemptsRange) { config.retry.attempts = attempts }
            if let delay = try retry.integer("base_delay_ms", baseDelayRange) { config.retry.baseDelayMs = delay }
            try retry.finish()
        }
        if var retention = try reader.object("retention") {
            if let keep = try retention.integer("keep", 1...Int.max) { config.retention.keep = keep }
            try retention.finish()
        }
        if var bundles = try reader.object("bundles") {
            if let grace = try bundles.number("grace_hours", 0...876_000) { config.bundles.graceHours = grace }
            if let sprites = try bundles.string("sprites") {
                do { _ = try SpriteSet(parsing: sprites) } catch let error as RequestError {
                    throw ConfigError("\(name): \"bundles.sprites\": \(error)")
                }
                config.bundles.sprites = sprites
            }
            if let languages = try bundles.string("languages") {
                do { config.bundles.languages = try BundleProfile.parseLanguages(languages) } catch let error as RequestError {
                    throw ConfigError("\(name): \"bundles.languages\": \(error)")
                }
            }
            try bundles.finish()
        }
        config.contact = try reader.string("contact")
        try reader.finish()
        return config
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.underlyingError.map { "\($0.localizedDescription)" } ?? context.debugDescription
        default:
            return "\(error)"
        }
    }
}
