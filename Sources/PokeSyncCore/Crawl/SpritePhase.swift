import Foundation
import PokeArchive
import PokeSQLite

/// Fetches the run's unfinished sprites (deduplicated by URL when queued) into the
/// content-addressed object folder.
///
/// Sprites are revalidated even when the API's deploy is unchanged: they live in
/// another repository (PokeAPI/sprites) that changes on its own schedule.
struct SpritePhase {
    let crawler: Crawler
    let fetcher: SpriteFetcher
    let run: RunRecord
    /// Gives up a host that keeps failing; shared by the phase's passes over one run.
    let watch: HostWatch
    /// The latest version's files by tree and URL, for the placeholder check (empty with
    /// `--allow-mass-change`: whatever the hosts answer is published).
    let held: [LinkedTree: [String: SHA256Digest]]

    private var store: Store { crawler.store }

    func run() async throws {
        let jobs = try store.spriteJobs(run: run.id, states: JobState.unfinished)
        try await forEachConcurrently(jobs, limit: crawler.options.concurrency) { job in
            try await process(job)
        }
    }

    private func process(_ job: SpriteJob) async throws {
        // Revalidate only when the bytes the validators stand for are still on disk, whole
        // and sound; a damaged object is fetched again unconditionally, which rewrites it.
        var validators: Validators?
        if crawler.options.mode == .sync, let known = job.knownHash, fetcher.objects.isSound(known) {
            validators = job.validators
        }
        let fetched = fetcher.location(of: job)
        let host = fetched.flatMap(CarriedFiles.httpHost)
        if let host, let reason = watch.givenUp(host) {
            try fail(job, fetched: fetched, error: "not asked: \(host) given up for this run (\(reason))", quietly: true)
            return
        }
        let started = host.map { watch.begin($0) }
        do {
            let outcome = try await watchedFetch(job, validators: validators, host: host)
            if let host, let started { watch.end(host, Self.answer(outcome), since: started) }
            switch outcome {
            case .stored(let hash, let size, let kept, let bodyBytes, let wire):
                crawler.progress.addRequestBytes(bodyBytes, wire: wire)
                if let host, try refusedAsPlaceholder(job, fetched: fetched, host: host, hash: hash, size: size) { return }
                try settle(job, .done, hash: hash, size: size, validators: kept, report: nil, fetched: fetched)
            case .notModified(let wire):
                crawler.progress.addRequestBytes(0, wire: wire)
                try settle(job, .unchanged, hash: job.knownHash!, size: nil, validators: nil, report: nil)
            case .missing(let reason):
                try settle(job, .missing, hash: nil, size: nil, validators: nil,
                           report: SpriteReport(url: job.url, document: job.document, outcome: .missing, reason: reason))
                try store.recordFetched(run: run.id, job: job, fetched: fetched)
            case .refused(let reason):
                try settle(job, .refused, hash: nil, size: nil, validators: nil,
                           report: SpriteReport(url: job.url, document: job.document, outcome: .refused, reason: reason))
                crawler.log("refused \(job.tree.noun) \(job.url) named by \(job.document): \(reason)")
            case .failed(let reason):
                try fail(job, fetched: fetched, error: "\(fetched ?? job.url): \(reason)", quietly: false)
            }
        } catch where !Self.isFatal(error) {
            if let host, let started {
                watch.end(host, .failed, since: started)
                // The same certificate comes back for every file: one line, then the rest wait.
                if case HTTPError.tls = error {
                    let first = watch.giveUp(host, because: "its TLS certificate is not accepted")
                    try fail(job, fetched: fetched, error: "\(error)", quietly: !first)
                    return
                }
            }
            try fail(job, fetched: fetched, error: "\(error)", quietly: error is HostGivenUpError)
        }
    }

    /// Records a failed file (carried or postponed at publish) and says it, until its
    /// host is given up: then once for the host, not once a file.
    private func fail(_ job: SpriteJob, fetched: String?, error: String, quietly: Bool) throws {
        try store.failLinkedFile(run: run.id, job: job, fetched: fetched, error: error)
        crawler.progress.spriteSettled(state: .failed)
        if !quietly { crawler.log("failed: \(job.tree.noun) \(job.path) named by \(job.document): \(error)") }
        // Checked after each failure, so that the line saying so comes as it happens.
        if let host = fetched.flatMap(CarriedFiles.httpHost) { _ = watch.givenUp(host) }
    }

    /// Whether `hash`, just stored for `job`, is its host's placeholder (``HostWatch/placeholder(_:held:new:size:)``):
    /// then the file fails (carried or postponed at publish, as a failure of its host), and
    /// when the placeholder is found just now, so do the files it was answered for before.
    /// The file's validators stay those of the bytes the store holds.
    private func refusedAsPlaceholder(_ job: SpriteJob, fetched: String?, host: String, hash: SHA256Digest, size: Int) throws -> Bool {
        guard !held.isEmpty else { return false }
        let verdict = watch.placeholder(host, held: held[job.tree]?[job.url], new: hash, size: size)
        guard verdict != .no else { return false }
        let error = "the same \(size) bytes as at least \(FileHostLimits.placeholderFiles - 1) other files that held other bytes (a placeholder): refused"
        if verdict == .found { try store.refusePlaceholder(run: run.id, hash: hash, host: host, error: error) }
        try fail(job, fetched: fetched, error: "\(fetched ?? job.url): \(error)", quietly: true)
        return true
    }

    /// The fetch, stopped when its host is given up meanwhile (by this request's own
    /// silence or by others failing): a dripping host holds a file no longer than the
    /// watch's budget.
    private func watchedFetch(_ job: SpriteJob, validators: Validators?, host: String?) async throws -> SpriteFetchOutcome {
        guard let host else { return try await fetcher.fetch(job, validators: validators) }
        let fetcher = self.fetcher, watch = self.watch
        return try await withThrowingTaskGroup(of: SpriteFetchOutcome?.self) { group in
            group.addTask { try await fetcher.fetch(job, validators: validators) }
            group.addTask {
                while true {
                    try await Task.sleep(for: .milliseconds(250))
                    if watch.givenUp(host) != nil { return nil }
                }
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let outcome = first else {
                throw HostGivenUpError(reason: "\(host) given up for this run (\(watch.givenUp(host) ?? "failing"))")
            }
            return outcome
        }
    }

    /// What the outcome says of its host, for the give-up rule: a 404/410 is an answer
    /// but not a delivery.
    static func answer(_ outcome: SpriteFetchOutcome) -> HostWatch.Answer {
        switch outcome {
        case .stored, .notModified: return .delivered
        case .missing: return .gone
        case .failed: return .failed
        case .refused: return .notAsked
        }
    }

    /// Errors that end the run: the store or the disk failing, or the user interrupting.
    /// Anything a host does (TLS included: a file host is not the source) fails one file.
    static func isFatal(_ error: any Error) -> Bool {
        switch error {
        case is CancellationError, is DatabaseError, is StoreError, is LocalFileError: return true
        default: return false
        }
    }

    private func settle(_ job: SpriteJob, _ state: JobState, hash: SHA256Digest?, size: Int?,
                        validators: Validators?, report: SpriteReport?, fetched: String? = nil) throws {
        try store.settleSprite(run: run.id, job: job, state: state, hash: hash, size: size,
                               validators: validators, report: report, fetched: fetched)
        crawler.progress.spriteSettled(state: state)
    }
}
