import Foundation
import PokeArchive
import PokeSQLite

/// Fetches the run's unfinished documents, stores each new content once, and queues
/// the sprites each document names.
struct DocumentPhase {
    let crawler: Crawler
    let run: RunRecord
    /// The deploy has not changed: documents of the base version are taken as they are.
    let shortcut: Bool
    /// Stops the run when the source goes silent; nil for a local folder.
    let watch: SourceWatch?

    private var store: Store { crawler.store }

    /// - Returns: how many documents were asked of the source (not taken by the shortcut).
    @discardableResult
    func run() async throws -> Int {
        let jobs = try store.documentJobs(run: run.id, states: JobState.unfinished)
        // The base version's hashes: taken as they are under the shortcut, and otherwise
        // compared with what is fetched, so that a document fetched whole (a source that
        // sends no validators) but the same as before counts as unchanged.
        let baseHashes = run.baseVersion != nil ? try store.documentHashes(version: run.baseVersion!) : [:]
        let asked = jobs.count(where: { takesShortcut($0, baseHash: baseHashes[$0.key]) == nil })
        let fetchAll = { @Sendable in
            try await forEachConcurrently(jobs, limit: crawler.options.concurrency) { job in
                try await process(job, baseHash: baseHashes[job.key])
            }
        }
        guard let watch else {
            try await fetchAll()
            return asked
        }
        // A source holding every request open fails none for minutes: the watch is asked
        // four times a second, and its verdict cancels the requests in flight (their jobs
        // stay pending for the next run).
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(operation: fetchAll)
            group.addTask {
                while true {
                    try await Task.sleep(for: .milliseconds(250))
                    if let silent = watch.silence() { throw silent }
                }
            }
            defer { group.cancelAll() }
            _ = try await group.next()
        }
        return asked
    }

    /// The hash a document is settled with unasked: the base version's, when the deploy
    /// has not changed; never for one being re-checked (upstream changed under the run).
    private func takesShortcut(_ job: DocumentJob, baseHash: SHA256Digest?) -> SHA256Digest? {
        shortcut && job.settledHash == nil ? baseHash : nil
    }

    private func process(_ job: DocumentJob, baseHash: SHA256Digest?) async throws {
        if let baseHash = takesShortcut(job, baseHash: baseHash) {
            try settleUnchanged(job, hash: baseHash)
            return
        }
        // `full` asks unconditionally, but for a document it is re-checking; `sync` sends
        // what the server said last time, when the stored copy it stands for is sound (a
        // damaged one is fetched again and rewritten).
        let conditional = crawler.options.mode == .sync || job.settledHash != nil
        let validators = conditional && job.knownHash.map(store.isDocumentSound) == true ? job.validators : nil
        watch?.begin(job.key)
        var answered = false
        do {
            let fetched = try await crawler.source.fetch(job.kind, id: job.id, validators: validators)
            answered = true
            watch?.end(job.key, .delivered)
            switch fetched {
            case .content(let document, let kept, let bodyBytes, let wire):
                crawler.progress.addRequestBytes(bodyBytes, wire: wire)
                if !kept.isEmpty { crawler.progress.documentHadValidators() }
                try storeContent(job, document: document, validators: kept, baseHash: baseHash)
            case .notModified(let wire):
                crawler.progress.addRequestBytes(0, wire: wire)
                crawler.progress.documentHadValidators()
                try settleUnchanged(job, hash: job.knownHash!)
            }
        } catch where !isFatalToRun(error) {
            try store.failJob(run: run.id, job: "document", key: job.key, error: "\(error)")
            crawler.progress.documentFailed(job.kind)
            crawler.log("failed: \(job.key)\(job.name.map { " (\($0))" } ?? ""): \(error)")
            // A run of failures stops the run as it happens, not at the ticker's next look.
            if !answered { watch?.end(job.key, SourceWatch.Ending(error, document: job.key)) }
            if let silent = watch?.silence() { throw silent }
        }
    }

    private func storeContent(_ job: DocumentJob, document: CanonicalDocument, validators: Validators,
                              baseHash: SHA256Digest?) throws {
        let hash = SHA256.hash(document.bytes)
        // Every document's links are kept, whatever this run selects: a later run with more
        // (`--sprites all`, `--cries`) reads them back for a document that has not changed.
        let links = try StoredDocument.links(of: document)
        let content = StoredDocument(
            size: document.bytes.count,
            compressedBody: try Zlib.compress(document.bytes, level: StoredDocument.compressionLevel),
            compressedSpriteRefs: links.sprites, compressedCryRefs: links.cries)
        let sprites = crawler.planner.plan(document.collected.map { SpriteReference(key: $0.path, url: $0.value) },
                                           tree: .sprites, kind: job.kind, document: job.key)
        let cries = crawler.planner.plan(document.collectedAlso.map { SpriteReference(key: $0.path, url: $0.value) },
                                         tree: .cries, kind: job.kind, document: job.key)
        let queued = (jobs: sprites.jobs + cries.jobs, reports: sprites.reports + cries.reports)
        try store.storeDocument(run: run.id, job: job, content: content, hash: hash, validators: validators,
                                state: .done, sprites: queued.jobs, reports: queued.reports)
        // Re-checked and the same as this run had it: unchanged, as a 304 would be.
        if hash == baseHash || hash == job.settledHash {
            crawler.progress.documentRefetchedSame(job.kind)
        } else {
            crawler.progress.documentSettled(job.kind, fetched: true)
        }
    }

    /// The known content stands (a 304, or an unchanged deploy); its linked files are queued again.
    private func settleUnchanged(_ job: DocumentJob, hash: SHA256Digest) throws {
        var queued: (jobs: [SpriteJob], reports: [SpriteReport]) = ([], [])
        for tree in LinkedTree.allCases where crawler.planner.wants(tree, of: job.kind) {
            let planned = crawler.planner.plan(try store.linkReferences(documentHash: hash, tree: tree),
                                               tree: tree, kind: job.kind, document: job.key)
            queued.jobs += planned.jobs
            queued.reports += planned.reports
        }
        try store.storeDocument(run: run.id, job: job, content: nil, hash: hash, validators: nil,
                                state: .unchanged, sprites: queued.jobs, reports: queued.reports)
        crawler.progress.documentSettled(job.kind, fetched: false)
    }
}
