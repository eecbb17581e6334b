import Foundation

/// `mirror.json`: a mirror's defaults. Command-line options override them.
public struct MirrorConfig: Codable, Sendable, Equatable {
    public var source: String = "https://pokeapi.co/api/v2"
    public var spriteSource: String?
    public var sprites: String = "default"
    public var concurrency: Int = 8
    /// Requests per second at most; nil for no cap.
    public var rate: Double?
    public var allowHosts: [String] = []
    public var timeoutSeconds: Int = 30
    public var retry = Retry()
    public var retention = Retention()
    /// Added to the User-Agent so that the API's operators can reach you.
    public var contact: String?

    public struct Retry: Codable, Sendable, Equatable {
        public var attempts: Int = 5
        public var baseDelayMs: Int = 500
        enum CodingKeys: String, CodingKey { case attempts, baseDelayMs = "base_delay_ms" }
        public init() {}
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            attempts = try values.decodeIfPresent(Int.self, forKey: .attempts) ?? attempts
            baseDelayMs = try values.decodeIfPresent(Int.self, forKey: .baseDelayMs) ?? baseDelayMs
        }
    }

    public struct Retention: Codable, Sendable, Equatable {
        /// Versions `prune` keeps (the nightly job prunes to this).
        public var keep: Int = 14
        public init() {}
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            keep = try values.decodeIfPresent(Int.self, forKey: .keep) ?? keep
        }
    }

    enum CodingKeys: String, CodingKey {
        case source, spriteSource = "sprite_source", sprites, concurrency, rate, allowHosts = "allow_hosts"
        case timeoutSeconds = "timeout_seconds", retry, retention, contact
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        source = try values.decodeIfPresent(String.self, forKey: .source) ?? source
        spriteSource = try values.decodeIfPresent(String.self, forKey: .spriteSource)
        sprites = try values.decodeIfPresent(String.self, forKey: .sprites) ?? sprites
        concurrency = try values.decodeIfPresent(Int.self, forKey: .concurrency) ?? concurrency
        rate = try values.decodeIfPresent(Double.self, forKey: .rate)
        allowHosts = try values.decodeIfPresent([String].self, forKey: .allowHosts) ?? allowHosts
        timeoutSeconds = try values.decodeIfPresent(Int.self, forKey: .timeoutSeconds) ?? timeoutSeconds
        retry = try values.decodeIfPresent(Retry.self, forKey: .retry) ?? retry
        retention = try values.decodeIfPresent(Retention.self, forKey: .retention) ?? retention
        contact = try values.decodeIfPresent(String.self, forKey: .contact)
    }

    /// Reads `mirror.json`; a mirror without one uses the defaults.
    /// - Throws: `UsageError` (exit 64) naming the file when it is not valid.
    public static func load(_ layout: MirrorLayout) throws -> MirrorConfig {
        guard let data = FileManager.default.contents(atPath: layout.configFile.path) else { return MirrorConfig() }
        do { return try JSONDecoder().decode(MirrorConfig.self, from: data) } catch {
            throw UsageError("\(layout.display(layout.configFile)) is not a valid configuration: \(Self.describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "\(path): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            return context.underlyingError.map { "\($0.localizedDescription)" } ?? context.debugDescription
        default:
            return "\(error)"
        }
    }
}
