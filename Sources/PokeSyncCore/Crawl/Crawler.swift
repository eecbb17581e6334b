import Foundation

/// Runs one `full` or `sync`: lists every kind, fetches every document and sprite
/// with bounded concurrency, and publishes a version once all of it is in.
///
/// All state lives in the store's frontier, committed job by job; running the same
/// command after a kill resumes with only the in-flight jobs fetched again.
package struct Crawler: Sendable {
    package let store: Store
    package let source: any DocumentSource
    package let sprites: SpriteFetcher?
    package let planner: SpritePlanner
    package let options: CrawlOptions
    package let progress: CrawlProgress
    package let log: @Sendable (String) -> Void
    /// This process's claim on the run it works on: a run another process resumed
    /// or discarded meanwhile is not published by this one.
    let owner = UUID().uuidString

    package init(store: Store, source: any DocumentSource, sprites: SpriteFetcher?, planner: SpritePlanner,
                options: CrawlOptions, progress: CrawlProgress, log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.source = source
        self.sprites = sprites
        self.planner = planner
        self.options = options
        self.progress = progress
        self.log = log
    }

    var plan: RunPlan {
        RunPlan(mode: options.mode, source: source.description, spriteSource: planner.spriteSourceDescription,
                spriteSet: options.sprites.description, revalidate: options.revalidate,
                kinds: options.kinds.description, cries: options.cries.description,
                crySource: planner.crySourceDescription)
    }

    /// - Throws: `CrawlError.resourcesFailed` (exit 1) when resources still fail after
    ///   retries; source errors (exit 69) when a list cannot be had, `CrawlError.sourceSilent` (69)
    ///   when the source stops delivering documents (`SourceWatch`); store and I/O
    ///   errors (exit 65/74); `CancellationError` when interrupted.
    package func run() async throws -> CrawlSummary {
        let started = Date()
        let (run, resumedAfterListing) = try openRun()
        let listsAnswered = try await listKinds(run: run)
        // The interrupted run's documents are of the upstream it began with, which may have
        // changed since (a kill, then a deploy): they are re-checked unless it has not.
        let changed = resumedAfterListing ? try await recheckIfUpstreamChanged(run: run.id, at: .resumed) : false
        let current = try store.currentRun() ?? run
        let shortcut = try !changed && deployUnchanged(current)
        if shortcut, let base = current.baseVersion {
            log("the source's deploy (\(current.deployHash ?? "?")) is the same as at version \(base): documents are not revalidated one by one (--revalidate forces it); sprites are")
        }
        try refreshProgress(run: current.id)
        progress.begin(phase: .documents)
        // A source over the network that delivers no document for as long as one attempt
        // may take (4 x --timeout), or fails a run of them, stops the run (exit 69).
        let watch = source.attemptDeadline.map {
            SourceWatch(source: source.description, budget: .seconds($0), listsAnswered: listsAnswered)
        }
        try await fetchDocumentsOfOneState(run: current, shortcut: shortcut, watch: watch)
        let notice = validatorNotice(run: try store.currentRun() ?? current)
        if let notice { log(notice) }
        try store.setSourceNotice(notice)
        if options.sprites != .none || options.cries != .none, let sprites {
            try await fetchSprites(with: sprites, run: current)
        }
        progress.begin(phase: .publishing)
        let failures = try store.failures(run: current.id)
        guard failures.isEmpty else { throw CrawlError.resourcesFailed(failures) }
        // Too many held files with other bytes (a re-encode, or a host answering other valid
        // bytes for everything) are published only when the operator says so.
        let withheld = try store.withholdMassChange(run: current.id, allow: options.allowMassChange)
        // Linked files whose host failed or lost them do not hold the documents back: the
        // latest version's bytes are carried, files never held are left for the next run.
        let settlement = try store.carryFailedFiles(run: current.id, allowShrink: options.allowShrink)
        let carried = settlement.carried
        let reports = try store.spriteReports(version: nil, run: current.id)
        let outcome = try store.publish(run: try store.currentRun() ?? current, owner: owner, skipIfUnchanged: options.mode == .sync,
                                        allowShrink: options.allowShrink)
        switch outcome {
        case .published(let version):
            try store.recordLastRunCarried(LastRunCarried(at: Timestamp.now(), version: version.number, published: true,
                                                          files: carried, withheld: withheld))
        case .unchanged(let base):
            try store.recordLastRunCarried(LastRunCarried(at: Timestamp.now(), version: base, published: false,
                                                          files: carried, withheld: withheld))
        }
        let counters = progress.snapshot()
        var cries = 0
        if case .published(let version) = outcome { cries = try store.fileCount(.cries, version: version.number) }
        return CrawlSummary(outcome: outcome,
                            documentsFetched: counters.documentsFetched, documentsUnchanged: counters.documentsUnchanged,
                            spritesFetched: counters.spritesFetched, spritesUnchanged: counters.spritesUnchanged,
                            spriteReports: reports, requests: counters.requests, transfer: counters.transfer,
                            sourceNotice: notice,
                            seconds: Date().timeIntervalSince(started), diff: nil, diffFile: nil, cries: cries,
                            carried: carried, dropped: settlement.dropped, withheld: withheld)
    }

    /// The sprite phase, once every document is in and so every sprite job is known.
    func fetchSprites(with fetcher: SpriteFetcher, run: RunRecord) async throws {
        try refreshProgress(run: run.id)
        for refusal in try store.refuseClashingSpritePaths(run: run.id) {
            log("refused sprite \(refusal.url) named by \(refusal.document): \(refusal.reason)")
        }
        progress.begin(phase: .sprites)
        // A host that delivers no file for as long as one attempt may take (4 x --timeout),
        // fails too many of its files or lies is given up: its remaining files are carried
        // or left for the next run.
        let log = self.log
        let watch = HostWatch(budget: .seconds(fetcher.client?.configuration.attemptDeadline ?? HTTPClientConfiguration().attemptDeadline),
                              slots: options.concurrency) { host, reason in
            log("giving up on \(host) for the rest of this run: \(reason); its other files are carried from the latest version or left for the next run")
        }
        let held = options.allowMassChange ? [:] : try store.heldFiles()
        try await SpritePhase(crawler: self, fetcher: fetcher, run: run, watch: watch, held: held).run()
        // Object files are not fsynced one by one: flush them all at once, then check
        // none was lost to a power cut earlier in this run before a version names them.
        FileSystem.flush(fetcher.objects.root)
        let damaged = try fetcher.objects.damaged(store: store, run: run.id)
        if !damaged.isEmpty {
            log("\(damaged.count) sprite file(s) were damaged on disk (a crash or power cut?): fetching them again")
            try store.requeueSprites(run: run.id, damaged)
            try await SpritePhase(crawler: self, fetcher: fetcher, run: run, watch: watch, held: held).run()
            FileSystem.flush(fetcher.objects.root)
        }
    }

    /// Resumes the unfinished run when it was started with the same plan; otherwise
    /// starts a new one (an unfinished run with another plan is discarded, its fetched
    /// content stays in the store). `resumedAfterListing` says whether it resumed a run
    /// that had recorded lists (whose documents may be of an older upstream).
    func openRun() throws -> (run: RunRecord, resumedAfterListing: Bool) {
        if let unfinished = try store.currentRun() {
            if unfinished.plan == plan {
                let counts = try store.progress(run: unfinished.id)
                log("resuming the \(plan.mode.rawValue) run started \(unfinished.startedAt): \(counts.documentsSettled) of \(counts.documentsTotal) documents and \(counts.spritesSettled) of \(counts.spritesTotal) sprites already done")
                try store.claimRun(unfinished.id, owner: owner)
                return (unfinished, !counts.listedKinds.isEmpty)
            }
            log("discarding an unfinished \(unfinished.plan.mode.rawValue) run from \(unfinished.startedAt) (it had other options)")
            try store.discardRun(unfinished.id)
        }
        let run = try store.startRun(plan)
        try store.claimRun(run.id, owner: owner)
        return (run, false)
    }

    /// Resolves `--kinds` (reading the source's root for `all`) unless the run did already,
    /// then lists the kinds not listed yet in this run, as many at once as `--concurrency`
    /// allows (requests beyond the connection cap would wait with their timeout running).
    /// Encounters (one per listed pokemon) and meta (one document) are derived, not listed.
    /// - Returns: how many kinds the source listed in this call (none when an earlier attempt did).
    func listKinds(run: RunRecord) async throws -> Int {
        let kinds = try await resolveKinds(run: run)
        let listed = try store.progress(run: run.id).listedKinds
        let missing = kinds.filter { $0.isListed && !listed.contains($0) }
        if !missing.isEmpty {
            progress.begin(phase: .listing)
        }
        try await forEachConcurrently(missing, limit: options.concurrency) { kind in
            let list = try await source.list(kind)
            // An empty list of a kind the apps are built on is an outage, never data; another
            // kind may be empty (an endpoint upstream has just added), and the shrink guard
            // still refuses one that had documents in the latest version.
            guard !list.resources.isEmpty || !ResourceKind.defaultKinds.contains(kind) else {
                throw SourceError(resource: "\(source.description) \(kind.apiName) list", reason: "the list is empty")
            }
            if let deploy = list.deployHash {
                try store.setDeployHash(run: run.id, deploy)
            }
            try store.recordList(run: run.id, list.resources, kind: kind)
            progress.addTransfer(list.transfer)
        }
        if kinds.contains(.pokemonEncounters) {
            // Again on every attempt: the pokemon list may have been listed again since.
            let pokemon = try store.documentJobs(run: run.id, states: JobState.allCases).filter { $0.kind == .pokemon }
            try store.recordList(run: run.id, pokemon.map { ListedResource(kind: .pokemonEncounters, id: $0.id, name: nil) },
                                 kind: .pokemonEncounters)
        }
        if kinds.contains(.meta), !listed.contains(.meta) {
            try store.recordList(run: run.id, [ListedResource(kind: .meta, id: 0, name: nil)], kind: .meta)
        }
        return missing.count
    }

    /// What the run's `--kinds` stands for, recorded with the run: `all` is what the
    /// source's root lists now. A change against the base version is said in one line
    /// (the version then adds or removes those kinds' documents, which its diff lists).
    func resolveKinds(run: RunRecord) async throws -> [ResourceKind] {
        if let kinds = try store.currentRun()?.resolvedKinds { return kinds }
        var root: [String]?
        if options.kinds != .default {
            progress.begin(phase: .listing)
            do {
                let index = try await source.rootIndex()
                progress.addRequestBytes(index.bodyBytes, wire: index.wire)
                if let deploy = index.deployHash { try store.setDeployHash(run: run.id, deploy) }
                try store.setRootEndpoints(run: run.id, index.endpoints)
                root = index.endpoints
            } catch where !options.kinds.needsRoot && !isFatalToRun(error) {
                // A comma list is checked against the root when the source has one; without
                // one, a name it lacks is said by that kind's list.
            }
        }
        let kinds = try options.kinds.resolve(root: root)
        if let base = run.baseVersion {
            let before = Set(try store.versionKinds(base)?.resolved ?? Array(try store.documentCounts(version: base).keys))
            let added = kinds.filter { !before.contains($0) }
            let dropped = before.subtracting(kinds).sorted()
            if !added.isEmpty || !dropped.isEmpty {
                log("kinds since version \(base): "
                    + [added.isEmpty ? nil : "added " + added.map(\.apiName).joined(separator: ", "),
                       dropped.isEmpty ? nil : "no longer mirrored " + dropped.map(\.apiName).joined(separator: ", ")]
                        .compactMap { $0 }.joined(separator: "; "))
            }
        }
        try store.setResolvedKinds(run: run.id, kinds)
        return kinds
    }

    /// `sync` may skip per-document checks when the source says its deploy has not
    /// changed since the base version (pokeapi.co's `X-PokeAPI-Hash`).
    func deployUnchanged(_ run: RunRecord) throws -> Bool {
        guard options.mode == .sync, !options.revalidate, let base = run.baseVersion, let deploy = run.deployHash,
              let baseRecord = try store.version(base) else { return false }
        let baseCries = try store.versionCrySet(base)
        return baseRecord.deployHash == deploy && baseRecord.spriteSet == plan.spriteSet
            && baseRecord.spriteSource == plan.spriteSource && baseRecord.source == plan.source
            && (baseCries?.selection.description ?? "none") == plan.cries && baseCries?.source == plan.crySource
    }

    /// One line when the source sent no ETag, Last-Modified nor deploy hash for any document
    /// this run fetched (a stock self-hosted PokeAPI): every `sync` then downloads every
    /// document whole again. Nil when it sent any, or nothing was fetched.
    func validatorNotice(run: RunRecord) -> String? {
        let counters = progress.snapshot()
        let fetched = counters.documentsFetched + counters.documentsRefetchedSame
        guard run.deployHash == nil, counters.documentsWithValidators == 0, fetched > 0 else { return nil }
        let cost = options.mode == .sync
            ? "this sync downloaded all \(fetched) documents again (\(counters.documentsRefetchedSame) of them unchanged)"
            : "every sync will download all \(fetched) documents again"
        return "the source sends no ETag, Last-Modified or deploy hash (X-PokeAPI-Hash): \(cost), "
            + "\(counters.transfer.description) so far this run; "
            + "on a self-hosted PokeAPI, Django's django.middleware.http.ConditionalGetMiddleware (validators, 304s) "
            + "and django.middleware.gzip.GZipMiddleware (compression) save the bytes, and an X-PokeAPI-Hash "
            + "set by its proxy from the data's version also the time (README)"
    }

    func refreshProgress(run: Int) throws {
        progress.load(try store.progress(run: run))
    }
}
