import Foundation
import PokedexReader
import PokedexUpdater

/// Runs `full` or `sync` on a mirror: takes the lock, opens the store, repairs a
/// sprite tree a crash left behind, builds the source and runs the crawl.
package enum MirrorRun {
    /// - Throws: `MirrorError.locked` (75), `RequestError` (64), `SourceError` (69),
    ///   `CrawlError` (1), store and file errors (65/74), `CancellationError`.
    package static func run(layout: MirrorLayout, settings: RunSettings,
                           progressDisplay: (@Sendable (CrawlProgress) -> any ProgressDisplay)? = nil,
                           log: @escaping @Sendable (String) -> Void) async throws -> CrawlSummary {
        let lock = try MirrorLock(layout: layout)
        defer { withExtendedLifetime(lock) {} }
        let store = try Store(layout: layout, create: true)
        let latest = try MirrorChoices.recorded(in: store)
        let choices = settings.choices(latest: latest)
        let rate = settings.rate(for: choices)
        try checkNarrowing(store: store, layout: layout, settings: settings, choices: choices, latest: latest, log: log)
        do {
            let summary: CrawlSummary
            if let finished = try finishStoppedFull(store: store, layout: layout, mode: settings.mode, choices: choices, log: log) {
                summary = finished
            } else {
                summary = try await crawl(store: store, layout: layout, settings: settings, choices: choices, rate: rate,
                                          progressDisplay: progressDisplay, log: log)
                // Published or not, the crawl finished the latest version's trees and diff
                // (a version a stopped run left is finished before the crawl starts).
                if let latest = try store.latestVersion() { try store.setMeta(finishedKey, String(latest.number)) }
            }
            // Only a run that ended well records its choices: a failed one (a source that
            // is not there, a typo) must not become what the nightly job repeats, and its
            // one-line error stays the only line.
            recordChoices(layout: layout, settings: settings, choices: choices, rate: rate,
                          isFirstVersion: try store.latestVersion()?.number == 1, log: log)
            return summary
        } catch {
            // Said by `status` instead of "interrupted", which then means a kill or a power cut.
            if let unfinished = try? store.currentRun() {
                let (status, reason) = RunEnding.reason(for: error)
                try? store.recordRunEnding(RunEnding(run: unfinished.id, status: status, reason: reason))
            }
            throw error
        }
    }

    /// Refuses a command line that narrows the mirror without `--allow-shrink`, before
    /// anything is fetched; with it, says what the mirror holds from now on. Either way a
    /// set of kinds that can make no bundle is said once, here.
    /// - Throws: ``MirrorError/narrowingRefused(_:configFile:)`` (64).
    static func checkNarrowing(store: Store, layout: MirrorLayout, settings: RunSettings, choices: MirrorChoices,
                               latest: MirrorChoices?, log: @Sendable (String) -> Void) throws {
        let latestKinds = try store.latestVersion().map { try store.versionKinds($0.number)?.resolved ?? ResourceKind.defaultKinds } ?? []
        let narrowing = MirrorNarrowing.of(settings: settings, choices: choices, latest: latest, latestKinds: latestKinds)
        if let narrowing {
            guard settings.allowShrink else { throw MirrorError.narrowingRefused(narrowing, configFile: layout.configFile.path) }
            log("narrowing the mirror on purpose (--allow-shrink: \(narrowing.changes.joined(separator: "; "))): from now on "
                + "it holds \(MirrorNarrowing.holdings(choices)), and \(layout.configFile.path) records it")
        }
        guard narrowing != nil || latest == nil || settings.givenOnCommandLine["kinds"] != nil,
              let kinds = choices.kinds.knownKinds else { return }
        let lacking = ReferenceCheck.kindsLacking(for: kinds)
        if !lacking.isEmpty {
            log("note: a bundle needs \(lacking.map(\.apiName).joined(separator: ", ")) besides --kinds \(choices.kinds): "
                + "`pokesync export` writes none for this mirror until they are mirrored")
        }
    }

    /// A new mirror's first run writes `mirror.json` with what it was made with; a later run
    /// records there a choice its command line changed, so that the nightly `sync` repeats
    /// it. Neither may fail the run: a file that cannot be written is a warning.
    /// - Parameter isFirstVersion: the mirror's latest version is its first (a mirror
    ///   with more, made by an older build, keeps its choices in its versions).
    static func recordChoices(layout: MirrorLayout, settings: RunSettings, choices: MirrorChoices, rate: RateInForce,
                              isFirstVersion: Bool, log: @Sendable (String) -> Void) {
        do {
            if !settings.config.exists {
                guard isFirstVersion else { return }
                guard try MirrorConfigFile.writeNew(layout: layout, settings: settings, choices: choices, rate: rate) else { return }
                log("wrote \(layout.display(layout.configFile)) with this mirror's choices: later runs repeat them unless told otherwise")
                return
            }
            let changes = MirrorConfigFile.changes(settings)
            // A narrower sprite set than the nightly export's profile asks for: the profile follows.
            let wanted = settings.config.bundles.sprites
            let bundleSprites = choices.sprites.bundleSet(wanted: wanted)
            let profileChanges = bundleSprites == wanted ? nil : bundleSprites
            guard !changes.isEmpty || profileChanges != nil else { return }
            try MirrorConfigFile.record(Dictionary(uniqueKeysWithValues: changes.map { ($0.key, $0.new) }),
                                        bundleSprites: profileChanges, layout: layout)
            for change in changes {
                log("\(layout.display(layout.configFile)): \"\(change.key)\" is now \"\(change.new)\" (was \"\(change.old)\"), so later runs repeat it")
            }
            if let profileChanges {
                log("\(layout.configFile.path): \"bundles\": {\"sprites\"} is now \"\(profileChanges)\" (was \"\(wanted)\"), "
                    + "so that the nightly export asks only for sprites the mirror keeps")
            }
        } catch {
            log("warning: \(error); later runs that name no source, sprites, cries or kinds take them from the latest version")
        }
    }

    /// The version a run finished all of (its trees and diff written), in the meta table,
    /// so that a `full` killed after publishing is finished, not fetched again, by the same
    /// command. A store made before this was kept counts its versions as finished.
    static let finishedKey = "finished_version"

    /// When the latest version was published by a `full` with these choices that was
    /// stopped before it finished (killed after its publish), and no run is in progress:
    /// finishes its trees and diff and returns its summary instead of fetching everything again.
    static func finishStoppedFull(store: Store, layout: MirrorLayout, mode: RunMode, choices: MirrorChoices,
                                  log: @escaping @Sendable (String) -> Void) throws -> CrawlSummary? {
        guard let latest = try store.latestVersion() else {
            if try store.meta(finishedKey) == nil { try store.setMeta(finishedKey, "0") }
            return nil
        }
        guard let finished = try store.meta(finishedKey).flatMap(Int.init) else {
            try store.setMeta(finishedKey, String(latest.number))
            return nil
        }
        guard mode == .full, latest.mode == .full, latest.number > finished, try store.currentRun() == nil,
              try MirrorChoices.recorded(in: store)?.normalized == choices.normalized else { return nil }
        var summary = CrawlSummary(outcome: .published(latest), documentsFetched: 0, documentsUnchanged: 0,
                                   spritesFetched: 0, spritesUnchanged: 0, spriteReports: [], requests: 0,
                                   transfer: TransferBytes(), sourceNotice: nil, seconds: 0, diff: nil, diffFile: nil)
        summary.cries = try store.fileCount(.cries, version: latest.number)
        // What the stopped run carried is that version's: its last lines say so again.
        summary.carried = try store.carriedFiles(version: latest.number)
        do {
            if let (diff, file) = try finishPublishing(store: store, layout: layout, log: log) {
                summary.diff = diff
                summary.diffFile = file
            }
        } catch MirrorError.followUpFailed(let step, let underlying) {
            throw MirrorError.publishedFollowUp(version: latest.number, step: step, underlying: underlying)
        }
        try store.setMeta(finishedKey, String(latest.number))
        log("version \(latest.number) was published by this full, which was stopped before it finished: its trees and diff are now written, nothing is fetched again (run it once more for a new full)")
        return summary
    }

    static func crawl(store: Store, layout: MirrorLayout, settings: RunSettings, choices: MirrorChoices, rate: RateInForce,
                      progressDisplay: (@Sendable (CrawlProgress) -> any ProgressDisplay)?,
                      log: @escaping @Sendable (String) -> Void) async throws -> CrawlSummary {
        let policy = SpritePolicy(sourceURL: URL(string: choices.source), extraHosts: settings.allowHosts,
                                  source: try choices.spriteSource.map { try SourceFactory.spriteSource($0) })
        let cryPolicy = SpritePolicy(sourceURL: URL(string: choices.source), extraHosts: settings.allowHosts,
                                     source: try choices.crySource.map { try SourceFactory.spriteSource($0, option: "cry-source") },
                                     tree: .cries)
        let client = HTTPClient(configuration: clientConfiguration(settings, rate: rate, policies: [policy, cryPolicy]))
        defer { client.invalidate() }
        let source = try SourceFactory.documentSource(choices.source, client: client)
        // Once, when the sources are known to be there and before the first request.
        if rate.origin == .polite {
            log("pokeapi.co asks its users to go gently: at most \(RunSettings.politeRateText) requests a second (--rate, or \"rate\" in mirror.json, to change)")
        }
        let fetcher = SpriteFetcher(policy: policy, cryPolicy: cryPolicy, client: client, layout: layout)
        let cries = choices.cries
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
            planner: SpritePlanner(set: choices.sprites, policy: policy, cries: cries, cryPolicy: cryPolicy),
            options: CrawlOptions(mode: settings.mode, concurrency: settings.concurrency,
                                  revalidate: settings.revalidate, sprites: choices.sprites,
                                  kinds: choices.kinds, allowShrink: settings.allowShrink, cries: cries,
                                  allowMassChange: settings.allowMassChange),
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
            } catch MirrorError.followUpFailed(let step, let underlying) {
                throw MirrorError.publishedFollowUp(version: version.number, step: step, underlying: underlying)
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
    /// - Throws: `MirrorError.followUpFailed` saying which step failed.
    static func finishPublishing(store: Store, layout: MirrorLayout,
                                 log: @Sendable (String) -> Void) throws -> (VersionDiff, URL)? {
        for tree in SpriteTree.all(layout: layout) {
            let unplaced: [String]
            do { unplaced = try tree.repairIfNeeded(store: store) } catch {
                throw MirrorError.followUpFailed(step: "bringing the \(tree.tree.noun) tree up to date", underlying: error)
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
            throw MirrorError.followUpFailed(step: "writing its diff", underlying: error)
        }
    }

    static func clientConfiguration(_ settings: RunSettings, rate: RateInForce, policies: [SpritePolicy]) -> HTTPClientConfiguration {
        var configuration = HTTPClientConfiguration()
        configuration.userAgent = settings.userAgent
        configuration.maxConnectionsPerHost = settings.concurrency
        configuration.timeout = max(1, settings.timeoutSeconds)
        configuration.requestsPerSecond = rate.requestsPerSecond
        configuration.retry = settings.retry
        // Redirects are followed only to origins we would fetch from anyway (the client
        // itself always follows a redirect to the same origin, such as PokeAPI's 301).
        configuration.redirects = RedirectPolicy { url in policies.contains { $0.allows(url) } }
        return configuration
    }
}
