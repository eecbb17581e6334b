import Foundation
import PokeLocking

/// Counters of a running crawl, updated by the fetching tasks and read by the
/// progress printer. Guarded by a `Locked` value: many tasks add, one reads.
package final class CrawlProgress: Sendable {
    package enum Phase: String, Sendable {
        case starting, listing, documents, sprites, publishing
    }

    package struct Snapshot: Sendable {
        package var phase: Phase = .starting
        package var phaseStarted = Date()
        package var settledAtPhaseStart = 0
        package var documentsTotal: [ResourceKind: Int] = [:]
        package var documentsSettled: [ResourceKind: Int] = [:]
        package var documentsFetched = 0
        package var documentsUnchanged = 0
        package var documentsFailed = 0
        package var spritesTotal = 0
        package var spritesSettled = 0
        package var spritesFetched = 0
        package var spritesUnchanged = 0
        package var spritesSkipped = 0
        package var spritesFailed = 0
        package var requests = 0
        /// Body bytes decoded, read from folders, and as sent over HTTP where known.
        package var transfer = TransferBytes()
        /// Documents fetched whole (200) whose content was the same as the base version's.
        package var documentsRefetchedSame = 0
        /// Documents that came with an ETag or Last-Modified, and 304s.
        package var documentsWithValidators = 0

        /// Jobs settled in the current phase's unit (documents or sprites).
        package var phaseSettled: Int {
            phase == .sprites ? spritesSettled : documentsSettled.values.reduce(0, +)
        }
        package var phaseTotal: Int {
            phase == .sprites ? spritesTotal : documentsTotal.values.reduce(0, +)
        }
    }

    private let state = Locked(Snapshot())
    /// Reads the HTTP client's request count, when there is one.
    private let requestCounter: (@Sendable () -> Int)?

    package init(requestCounter: (@Sendable () -> Int)? = nil) {
        self.requestCounter = requestCounter
    }

    package func snapshot() -> Snapshot {
        var snapshot = state.withLock { $0 }
        if let requestCounter { snapshot.requests = requestCounter() }
        return snapshot
    }

    func begin(phase: Phase) {
        state.withLock {
            $0.phase = phase
            $0.phaseStarted = Date()
            $0.settledAtPhaseStart = $0.phaseSettled
        }
    }

    /// Takes the totals and what is already done from the store (a resumed run starts part way).
    func load(_ progress: RunProgress) {
        state.withLock { counters in
            for kind in progress.documents.keys {
                counters.documentsTotal[kind] = progress.documentCount(kind, settledOnly: false)
                counters.documentsSettled[kind] = progress.documentCount(kind, settledOnly: true)
            }
            counters.spritesTotal = progress.spritesTotal
            counters.spritesSettled = progress.spritesSettled
        }
    }

    /// A document fetched whole turned out the same as before: it counts as unchanged.
    func documentRefetchedSame(_ kind: ResourceKind) {
        state.withLock {
            $0.documentsSettled[kind, default: 0] += 1
            $0.documentsUnchanged += 1
            $0.documentsRefetchedSame += 1
        }
    }

    /// The source sent a validator for a document (or answered a conditional request).
    func documentHadValidators() {
        state.withLock { $0.documentsWithValidators += 1 }
    }

    func documentSettled(_ kind: ResourceKind, fetched: Bool) {
        state.withLock {
            $0.documentsSettled[kind, default: 0] += 1
            if fetched { $0.documentsFetched += 1 } else { $0.documentsUnchanged += 1 }
        }
    }

    func documentFailed(_ kind: ResourceKind) {
        state.withLock { $0.documentsFailed += 1 }
    }

    func spriteSettled(state settled: JobState) {
        state.withLock {
            switch settled {
            case .done: $0.spritesFetched += 1; $0.spritesSettled += 1
            case .unchanged: $0.spritesUnchanged += 1; $0.spritesSettled += 1
            case .missing, .refused: $0.spritesSkipped += 1; $0.spritesSettled += 1
            case .failed: $0.spritesFailed += 1
            case .pending, .carried, .postponed, .vanished, .withheld: break
            }
        }
    }

    /// - Parameters: count: decoded body bytes; wire: how the body came (as sent over HTTP, or from a folder).
    func addRequestBytes(_ count: Int, wire: WireSize) {
        state.withLock { $0.transfer.add(decoded: count, wire) }
    }

    /// Adds what a list's pages moved.
    func addTransfer(_ transfer: TransferBytes) {
        state.withLock { $0.transfer.add(transfer) }
    }
}
