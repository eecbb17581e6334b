import Foundation

/// Runs `full` or `sync` on a mirror: takes the lock, opens the store, repairs a
/// sprite tree a crash left behind, builds the source and runs the crawl.
package enum MirrorRun {
    /// - Throws: `LockError` (75), `RequestError` (64), `SourceError` (69),
    ///   `CrawlError` (1), store and file errors (65/74), `CancellationError`.
    package static func run(layout: MirrorLayout, settings: RunSettings,
                           progressDisplay: (@Sendable (CrawlProgress) -> any ProgressDisplay)? = nil,
                           log: @escaping @Sendable (String) -> Void) async throws -> CrawlSummary {
        let lock = try MirrorLock(layout: layout)
        defer { withExtendedLifetime(lock) {} }
        let store = try Store(layout: layout, create: true)
        do {
            return try await crawl(store: store, layout: layout, settings: settings, progressDisplay: progressDisplay, log: log)
        } catch {
            // Said by `status` instead of "interrupted", which then means a kill or a power cut.
            if let unfinished = try? store.currentRun() {
                let (status, reason) = RunEnding.reason(for: error)
                try? store.recordRunEnding(RunEnding(run: unfinished.id, status: status, reason: reason))
            }
            throw error
        }
    }

    static func crawl(store: Store, layout: MirrorLayout, settings: RunSettings,
                      progressDisplay: (@Sendable (CrawlProgress) -> any ProgressDisplay)?,
                      log: @escaping @Sendable (String) -> Void) async throws -> CrawlSummary {
        let policy = SpritePolicy(sourceURL: URL(string: settings.source), extraHosts: settings.allowHosts,
                                  source: try settings.spriteSource.map { try SourceFactory.spriteSource($0) })
        let cryPolicy = SpritePolicy(sourceURL: URL(string: settings.source), extraHosts: settings.allowHosts,
                                     source: try settings.crySource.map { try SourceFactory.spriteSource($0, option: "cry-source") },
                                     tree: .cries)
        let client = HTTPClient(configuration: clientConfiguration(settings, policies: [policy, cryPolicy]))
        defer { client.invalidate() }
        let source = try SourceFactory.documentSource(settings.source, client: client)
        let fetcher = SpriteFetcher(policy: policy, cryPolicy: cryPolicy, client: client, layout: layout)
        let cries = try self.cries(settings, store: store)
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
        let printer = progressDisplay?(progress)
        defer { printer?.stop() }
        let crawler = Crawler(
            store: store, source: source, sprites: fetcher,
            planner: SpritePlanner(set: settings.sprites, policy: policy, cries: cries, cryPolicy: cryPolicy),
            options: CrawlOptions(mode: settings.mode, concurrency: settings.concurrency,
                                  revalidate: settings.revalidate, sprites: settings.sprites,
                                  kinds: try kinds(settings, store: store), allowShrink: settings.allowShrink, cries: cries),
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
            for tree in SpriteTree.all(layout: layout) {
                let unplaced = try tree.materialize(version: version, store: store)
                if !unplaced.isEmpty {
                    log("warning: \(unplaced.count) \(tree.tree.noun) file(s) could not be placed in the \(tree.tree.folderName) tree, e.g. \(unplaced[0]); trying again next run")
                }
            }
        }
        return summary
    }

    /// What follows a publish, outside its transaction: the sprite tree brought to the
    /// latest version, and the diff against the version before written to `diffs/`
    /// where the nightly job can mail or log it. Both are idempotent and look at what
    /// they left (the tree's recorded version, the diff's files), so a crash or a full
    /// disk in between is finished by the next run before it crawls.
    /// - Returns: the diff written now, if one was missing.
    /// - Throws: `FollowUpFailure` saying which step failed.
    static func finishPublishing(store: Store, layout: MirrorLayout,
                                 log: @Sendable (String) -> Void) throws -> (VersionDiff, URL)? {
        for tree in SpriteTree.all(layout: layout) {
            let unplaced: [String]
            do { unplaced = try tree.repairIfNeeded(store: store) } catch {
                throw FollowUpFailure(step: "bringing the \(tree.tree.noun) tree up to date", underlying: error)
            }
            if !unplaced.isEmpty {
                log("warning: \(unplaced.count) \(tree.tree.noun) file(s) could not be placed in the \(tree.tree.folderName) tree, e.g. \(unplaced[0]); trying again next run")
            }
        }
        do {
            // The diff stage knows what it wrote: a latest version whose diff against the
            // one before has no file yet still needs it (a crash or a full disk after the
            // publish commit), whichever run published it.
            let versions = try store.versions()
            guard versions.count >= 2 else { return nil }
            let (from, to) = (versions[versions.count - 2].number, versions[versions.count - 1])
            guard !VersionDiff.isWritten(from: from, to: to.number, publishedAt: to.createdAt, layout: layout) else { return nil }
            let diff = try VersionDiff.compute(store: store, from: from, to: to.number)
            return (diff, try diff.write(to: layout))
        } catch {
            throw FollowUpFailure(step: "writing its diff", underlying: error)
        }
    }

    /// `--kinds` as given, else what the latest version was made with: a mirror made with
    /// `--kinds all` stays whole through a nightly `sync` that names no kinds. Only a set
    /// given on purpose narrows a mirror.
    static func kinds(_ settings: RunSettings, store: Store) throws -> KindSelection {
        if let kinds = settings.kinds { return kinds }
        guard let latest = try store.latestVersion() else { return .default }
        return try store.versionKinds(latest.number)?.selection ?? .default
    }

    /// `--cries` as given, else what the latest version was made with, as for `--kinds`.
    static func cries(_ settings: RunSettings, store: Store) throws -> CrySet {
        if let cries = settings.cries { return cries }
        guard let latest = try store.latestVersion() else { return .none }
        return try store.versionCrySet(latest.number)?.selection ?? .none
    }

    static func clientConfiguration(_ settings: RunSettings, policies: [SpritePolicy]) -> HTTPClientConfiguration {
        var configuration = HTTPClientConfiguration()
        configuration.userAgent = settings.userAgent
        configuration.maxConnectionsPerHost = settings.concurrency
        configuration.timeout = max(1, settings.timeoutSeconds)
        configuration.requestsPerSecond = settings.rate
        configuration.retry = settings.retry
        // Redirects are followed only to origins we would fetch from anyway (the client
        // itself always follows a redirect to the same origin, such as PokeAPI's 301).
        configuration.allowRedirect = { url in policies.contains { $0.allows(url) } }
        return configuration
    }
}
