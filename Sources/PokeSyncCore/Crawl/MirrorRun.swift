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

    public var userAgent: String {
        var agent = "pokesync/\(PokeSync.version) (+https://github.com/pokesync/pokesync; offline PokeAPI mirror"
        if let contact { agent += "; \(contact)" }
        return agent + ")"
    }
}

public enum PokeSync {
    public static let version = "0.1.0"
}

/// Runs `full` or `sync` on a mirror: takes the lock, opens the store, repairs a
/// sprite tree a crash left behind, builds the source and runs the crawl.
public enum MirrorRun {
    /// - Throws: `LockError` (75), `UsageError` (64), `SourceError` (69),
    ///   `CrawlError` (1), store and file errors (65/74), `CancellationError`.
    public static func run(layout: MirrorLayout, settings: RunSettings, showProgress: Bool = false,
                           log: @escaping @Sendable (String) -> Void) async throws -> CrawlSummary {
        let lock = try MirrorLock(layout: layout)
        defer { withExtendedLifetime(lock) {} }
        let store = try Store(layout: layout, create: true)
        let client = HTTPClient(configuration: try clientConfiguration(settings))
        defer { client.invalidate() }
        let source = try makeSource(settings.source, client: client)
        let policy = SpritePolicy(sourceHost: source.host, extraHosts: settings.allowHosts,
                                  source: try settings.spriteSource.map(makeSpriteSource))
        let fetcher = SpriteFetcher(policy: policy, client: client, layout: layout)
        try fetcher.tree.repairIfNeeded(store: store)
        let progress = CrawlProgress(requestCounter: { client.statistics.requestsSent })
        let printer = showProgress ? ProgressPrinter(progress: progress) : nil
        defer { printer?.stop() }
        let crawler = Crawler(
            store: store, source: source, sprites: fetcher, planner: SpritePlanner(set: settings.sprites, policy: policy),
            options: CrawlOptions(mode: settings.mode, concurrency: settings.concurrency,
                                  revalidate: settings.revalidate, sprites: settings.sprites),
            progress: progress, log: { line in
                printer?.clearLine()
                log(line)
            })
        var summary = try await crawler.run()
        // Each publish leaves its diff where the nightly job can mail or log it.
        if case .published(let version) = summary.outcome, let previous = try store.versions().dropLast().last {
            let diff = try VersionDiff.compute(store: store, from: previous.number, to: version.number)
            summary.diff = diff
            summary.diffFile = try diff.write(to: layout)
        }
        return summary
    }

    static func clientConfiguration(_ settings: RunSettings) throws -> HTTPClientConfiguration {
        var configuration = HTTPClientConfiguration()
        configuration.userAgent = settings.userAgent
        configuration.maxConnectionsPerHost = settings.concurrency
        configuration.timeout = max(1, settings.timeoutSeconds)
        configuration.requestsPerSecond = settings.rate
        configuration.retry = settings.retry
        let sourceHost = URL(string: settings.source)?.host?.lowercased()
        let allowed = Set(settings.allowHosts.map { $0.lowercased() } + ["raw.githubusercontent.com"]
                          + [sourceHost, settings.spriteSource.flatMap { URL(string: $0)?.host?.lowercased() }].compactMap { $0 })
        // Redirects are followed only to hosts we would fetch from anyway.
        configuration.allowRedirect = { url in allowed.contains(url.host?.lowercased() ?? "") }
        return configuration
    }

    /// `--source URL|DIR`.
    /// - Throws: `UsageError` for a URL that is not http(s), `SourceError` for a missing folder.
    public static func makeSource(_ text: String, client: HTTPClient) throws -> any DocumentSource {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            guard let url = URL(string: text), url.host != nil else { throw UsageError("--source \(text): not a valid URL") }
            return HTTPSource(base: url, client: client)
        }
        if text.contains("://") { throw UsageError("--source \(text): only http(s) URLs and local folders are supported") }
        return try FolderSource(root: URL(fileURLWithPath: text))
    }

    /// `--sprite-source URL|DIR`.
    static func makeSpriteSource(_ text: String) throws -> SpriteSource {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            guard let url = URL(string: text), url.host != nil else { throw UsageError("--sprite-source \(text): not a valid URL") }
            return .http(url)
        }
        var isDirectory: ObjCBool = false
        let url = URL(fileURLWithPath: text).standardizedFileURL
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SourceError(resource: text, reason: "--sprite-source folder does not exist")
        }
        return .folder(url)
    }
}
