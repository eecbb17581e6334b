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

public enum PokeSync {
    public static let version = "0.2.0"

    /// The one User-Agent pokesync sends: the API's fair-use policy asks clients to say who
    /// they are; `contact` (mirror.json) lets its operators reach the mirror's owner.
    public static func userAgent(contact: String?) -> String {
        var agent = "pokesync/\(version) (+https://github.com/pokesync/pokesync; offline PokeAPI mirror"
        if let contact { agent += "; \(contact)" }
        return agent + ")"
    }
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
        do {
            return try await crawl(store: store, layout: layout, settings: settings, showProgress: showProgress, log: log)
        } catch {
            // Said by `status` instead of "interrupted", which then means a kill or a power cut.
            if let unfinished = try? store.currentRun() {
                let (status, reason) = RunEnding.reason(for: error)
                try? store.recordRunEnding(RunEnding(run: unfinished.id, status: status, reason: reason))
            }
            throw error
        }
    }

    static func crawl(store: Store, layout: MirrorLayout, settings: RunSettings, showProgress: Bool,
                      log: @escaping @Sendable (String) -> Void) async throws -> CrawlSummary {
        let policy = SpritePolicy(sourceURL: URL(string: settings.source), extraHosts: settings.allowHosts,
                                  source: try settings.spriteSource.map(makeSpriteSource))
        let client = HTTPClient(configuration: clientConfiguration(settings, policy: policy))
        defer { client.invalidate() }
        let source = try makeSource(settings.source, client: client)
        let fetcher = SpriteFetcher(policy: policy, client: client, layout: layout)
        do {
            if let (diff, file) = try finishPublishing(store: store, layout: layout, log: log) {
                log("wrote the diff of versions \(diff.from) and \(diff.to) that the last run left unwritten: \(file.path)")
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Left over from an earlier run; it must not keep this run from starting.
            log("warning: \(error); trying again after this run")
        }
        let progress = CrawlProgress(requestCounter: { client.statistics.requestsSent })
        let printer = showProgress ? ProgressPrinter(progress: progress) : nil
        defer { printer?.stop() }
        let crawler = Crawler(
            store: store, source: source, sprites: fetcher, planner: SpritePlanner(set: settings.sprites, policy: policy),
            options: CrawlOptions(mode: settings.mode, concurrency: settings.concurrency,
                                  revalidate: settings.revalidate, sprites: settings.sprites,
                                  allowShrink: settings.allowShrink),
            progress: progress, log: { line in
                printer?.clearLine()
                log(line)
            })
        var summary = try await crawler.run()
        switch summary.outcome {
        case .published(let version):
            do {
                if let (diff, file) = try finishPublishing(store: store, layout: layout, log: log) {
                    summary.diff = diff
                    summary.diffFile = file
                }
            } catch let failure as FollowUpFailure {
                throw PublishedFollowUpError(version: version.number, failure: failure)
            }
        case .unchanged(let version):
            // A damaged object the run fetched again is a new file; the tree's hard link
            // still names the old one until it is placed again (files already right are skipped).
            let unplaced = try SpriteTree(layout: layout).materialize(version: version, store: store)
            if !unplaced.isEmpty {
                log("warning: \(unplaced.count) sprite(s) could not be placed in the sprite tree, e.g. \(unplaced[0]); trying again next run")
            }
        }
        return summary
    }

    /// What follows a publish, outside its transaction: the sprite tree brought to the
    /// latest version, and the diff against the version before written to `diffs/`
    /// where the nightly job can mail or log it. Both are idempotent and recorded in
    /// the store (the publish commit sets `pending_diff`), so a crash or a full disk in
    /// between is finished by the next run before it crawls.
    /// - Returns: the diff written now, if one was pending.
    /// - Throws: `FollowUpFailure` saying which step failed.
    static func finishPublishing(store: Store, layout: MirrorLayout,
                                 log: @Sendable (String) -> Void) throws -> (VersionDiff, URL)? {
        let unplaced: [String]
        do { unplaced = try SpriteTree(layout: layout).repairIfNeeded(store: store) } catch {
            throw FollowUpFailure(step: "bringing the sprite tree up to date", underlying: error)
        }
        if !unplaced.isEmpty {
            log("warning: \(unplaced.count) sprite(s) could not be placed in the sprite tree, e.g. \(unplaced[0]); trying again next run")
        }
        do {
            guard let pending = try store.meta("pending_diff") else { return nil }
            let numbers = pending.split(separator: "-").compactMap { Int($0) }
            guard numbers.count == 2, try store.version(numbers[0]) != nil, try store.version(numbers[1]) != nil else {
                try store.setMeta("pending_diff", nil)  // a pruned version: nothing left to compare
                return nil
            }
            let diff = try VersionDiff.compute(store: store, from: numbers[0], to: numbers[1])
            let file = try diff.write(to: layout)
            try store.setMeta("pending_diff", nil)
            return (diff, file)
        } catch {
            throw FollowUpFailure(step: "writing its diff", underlying: error)
        }
    }

    static func clientConfiguration(_ settings: RunSettings, policy: SpritePolicy) -> HTTPClientConfiguration {
        var configuration = HTTPClientConfiguration()
        configuration.userAgent = settings.userAgent
        configuration.maxConnectionsPerHost = settings.concurrency
        configuration.timeout = max(1, settings.timeoutSeconds)
        configuration.requestsPerSecond = settings.rate
        configuration.retry = settings.retry
        // Redirects are followed only to origins we would fetch from anyway (the client
        // itself always follows a redirect to the same origin, such as PokeAPI's 301).
        configuration.allowRedirect = { url in policy.allows(url) }
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

/// A step after a publish that failed: the step, and why.
struct FollowUpFailure: PokeSyncFailure {
    var step: String
    var underlying: any Error

    var exitStatus: ExitStatus { (underlying as? any PokeSyncFailure)?.exitStatus ?? .ioError }
    var description: String {
        "\(step) for the last published version failed: \((underlying as? any PokeSyncFailure)?.description ?? "\(underlying)")"
    }
}

/// The version is published (a reader sees it), but a step after it failed; the next
/// run finishes that step before anything else, without fetching the version again.
public struct PublishedFollowUpError: PokeSyncFailure {
    public var version: Int
    var failure: FollowUpFailure

    public var exitStatus: ExitStatus { failure.exitStatus }
    public var description: String {
        let reason = (failure.underlying as? any PokeSyncFailure)?.description ?? "\(failure.underlying)"
        return "published version \(version); \(failure.step) failed: \(reason) (the next full or sync finishes it first)"
    }
}
