import Foundation
import PokeArchive

/// Fetches the run's unfinished sprites (deduplicated by URL when queued) into the
/// content-addressed object folder.
///
/// Sprites are revalidated even when the API's deploy is unchanged: they live in
/// another repository (PokeAPI/sprites) that changes on its own schedule.
struct SpritePhase {
    let crawler: Crawler
    let fetcher: SpriteFetcher
    let run: RunRecord

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
        do {
            switch try await fetcher.fetch(job, validators: validators) {
            case .stored(let hash, let size, let kept, let bodyBytes, let wire):
                crawler.progress.addRequestBytes(bodyBytes, wire: wire)
                try settle(job, .done, hash: hash, size: size, validators: kept, report: nil)
            case .notModified(let wire):
                crawler.progress.addRequestBytes(0, wire: wire)
                try settle(job, .unchanged, hash: job.knownHash!, size: nil, validators: nil, report: nil)
            case .missing(let reason):
                try settle(job, .missing, hash: nil, size: nil, validators: nil,
                           report: SpriteReport(url: job.url, document: job.document, outcome: .missing, reason: reason))
            case .refused(let reason):
                try settle(job, .refused, hash: nil, size: nil, validators: nil,
                           report: SpriteReport(url: job.url, document: job.document, outcome: .refused, reason: reason))
                crawler.log("refused \(job.tree.noun) \(job.url) named by \(job.document): \(reason)")
            }
        } catch where !isFatalToRun(error) {
            try store.failJob(run: run.id, job: job.tree.job, key: job.url, error: "\(error)")
            crawler.progress.spriteSettled(state: .failed)
            crawler.log("failed: \(job.tree.noun) \(job.path) named by \(job.document): \(error)")
        }
    }

    private func settle(_ job: SpriteJob, _ state: JobState, hash: SHA256Digest?, size: Int?,
                        validators: Validators?, report: SpriteReport?) throws {
        try store.settleSprite(run: run.id, job: job, state: state, hash: hash, size: size,
                               validators: validators, report: report)
        crawler.progress.spriteSettled(state: state)
    }
}
