import Foundation
import PokeLocking

/// When a document source stops the run: the number `--help` and ``SourceWatch`` read.
package enum DocumentSourceLimits {
    /// Document requests failed in a row (after their retries) that stop the run (exit 69).
    package static let failuresInARow = 20
}

/// Watches the document source through the document phase and stops the run when it has
/// gone silent: `failureLimit` documents failing in a row (each after its retries), or no
/// answer for `budget` while requests to it were outstanding.
///
/// The same rule as ``HostWatch`` for file hosts (failures in a row, or one attempt's
/// deadline without a delivery), but a silent source cannot be given up and its documents
/// carried: the run stops with exit 69 and keeps its frontier, so that a source that answers
/// the lists and then holds every document open costs a night minutes, not a day. It counts
/// silence, not slowness: a source delivering a document now and then, however slowly, or
/// failing a few among many (retries absorb those), is never stopped; nor is one that
/// answers at once with what is refused (a 404, a body that does not decode): that costs a
/// request a document, and the run ends with those documents failed (exit 1).
final class SourceWatch: Sendable {
    private struct State {
        /// Restarted by a delivery or an answer refused at once.
        var clock: SilenceClock
        /// The documents asked for and not answered yet, named when the run stops.
        var outstanding = Set<String>()
        var failuresInARow = 0
        var delivered = 0
        var lastFailure: String?
        var stopped: CrawlError?
    }

    let source: String
    let failureLimit: Int
    let budget: Duration
    /// Lists the source answered in this process before its documents were asked for.
    let listsAnswered: Int
    private let state: Locked<State>

    init(source: String, failureLimit: Int = DocumentSourceLimits.failuresInARow, budget: Duration, listsAnswered: Int) {
        self.source = source
        self.failureLimit = max(1, failureLimit)
        self.budget = budget
        self.listsAnswered = listsAnswered
        state = Locked(State(clock: SilenceClock()))
    }

    /// The request for `document` (`pokemon/25`) starts.
    func begin(_ document: String) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.clock.begin(at: now)
            state.outstanding.insert(document)
        }
    }

    /// How a document request ended, as the budget counts it.
    enum Ending {
        /// New content or a 304.
        case delivered
        /// An answer refused at once, never retried (a 404, a body not in its announced
        /// encoding, a document naming another id): the source spoke, quickly; not silence.
        case refused
        /// Failed after its retries (timeouts, 5xx, bodies cut short): what the budget counts.
        case failed(String)

        /// How `error`, thrown by a document fetch, counts.
        init(_ error: any Error, document: String) {
            if let http = error as? HTTPError, http.isRetryable {
                self = .failed("\(document): \(http)")
            } else {
                self = .refused
            }
        }
    }

    /// The request for `document` ended.
    func end(_ document: String, _ ending: Ending) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.outstanding.remove(document)
            switch ending {
            case .delivered:
                state.failuresInARow = 0
                state.delivered += 1
                state.lastFailure = nil
                state.clock.end(at: now, heard: true)
            case .refused:
                state.failuresInARow = 0
                state.lastFailure = nil
                state.clock.end(at: now, heard: true)
            case .failed(let reason):
                state.failuresInARow += 1
                state.lastFailure = reason
                state.clock.end(at: now, heard: false)
            }
        }
    }

    /// Why the run must stop now, or nil while the source still counts as answering.
    func silence() -> CrawlError? {
        let now = ContinuousClock.now
        return state.withLock { state in
            if let stopped = state.stopped { return stopped }
            let what: String
            if state.failuresInARow >= failureLimit {
                what = "failed \(state.failuresInARow) documents in a row (the last: \(state.lastFailure ?? "?"))"
            } else if state.clock.isSilent(at: now, budget: budget) {
                // What the source did answer meanwhile (a 503 after every retry), if anything.
                let last = state.lastFailure.map { " (the last failure: \($0))" } ?? ""
                what = "no document for \(SilenceClock.spell(budget)), with \(Self.name(state.outstanding)) outstanding\(last)"
            } else {
                return nil
            }
            // A resumed run's lists came in an earlier attempt: what this one saw is said.
            let answered = switch (listsAnswered > 0, state.delivered) {
            case (true, 0): "answered the lists"
            case (true, let count): "answered the lists and \(count) document(s)"
            case (false, 0): "was asked for the documents left"
            case (false, let count): "answered \(count) of the documents left"
            }
            state.stopped = .sourceSilent(source: source, what: "\(answered), then \(what)")
            return state.stopped
        }
    }

    /// "1 request (pokemon/1)", "8 requests (ability/1, ability/2, ability/3 ...)".
    static func name(_ outstanding: Set<String>) -> String {
        let shown = outstanding.sorted().prefix(3).joined(separator: ", ")
        let count = outstanding.count
        return "\(count) request\(count == 1 ? "" : "s") (\(shown)\(count > 3 ? " ..." : ""))"
    }
}
