import Foundation

/// Watches the hosts linked files come from, and gives one up for the rest of the run
/// when it stops delivering: `failureLimit` files in a row without a file (200) or a 304
/// among which at least `failuresNeeded` failed outright (5xx, timeouts, an error page, too
/// large), or neither a file nor a 404/410 for `budget` while requests to it were
/// outstanding (a host dripping a byte a second fails no request quickly, it only never
/// finishes one).
///
/// A 404 or 410 is an answer, not a delivery: it restarts the silence clock but not the
/// run of files without a delivery, so a host answering 500 to everything but the files it
/// lost (404) is given up as fast as one answering only 500. It never gives a host up
/// alone: a healthy host with a run of files it never had (404 after 404) is asked for each.
///
/// A given-up host's remaining files are not asked for: they are carried from the latest
/// version or left for the next run at once, so that one bad host costs the run about
/// `budget`, not its files times their retries.
final class HostWatch: Sendable {
    private struct State {
        /// Restarted by a file, a 304 or a 404/410.
        var clock: SilenceClock
        /// Files settled since the host last delivered one (a 404/410 or a failure each).
        var undeliveredInARow = 0
        /// How many of those failed outright (not a 404/410).
        var failedInARow = 0
        var givenUp: String?
    }

    /// What a host did with one request, for the give-up rule.
    enum Answer {
        /// A file (200) or a 304: the host works.
        case delivered
        /// 404 or 410: an answer, not a delivery.
        case gone
        /// A failure after every retry: 5xx, timeouts, an error page, too large, TLS.
        case failed
        /// The request never reached the host (its URL was refused first).
        case notAsked
    }

    let failureLimit: Int
    /// Failures (not 404/410) needed among `failureLimit` undelivered files: a quarter.
    var failuresNeeded: Int { max(1, failureLimit / 4) }
    let budget: Duration
    /// Told once for each host given up, with why.
    let onGiveUp: @Sendable (_ host: String, _ reason: String) -> Void
    private let hosts = Locked([String: State]())

    init(failureLimit: Int = 20, budget: Duration, onGiveUp: @escaping @Sendable (_ host: String, _ reason: String) -> Void = { _, _ in }) {
        self.failureLimit = max(1, failureLimit)
        self.budget = budget
        self.onGiveUp = onGiveUp
    }

    /// A request to `host` starts.
    func begin(_ host: String) {
        let now = ContinuousClock.now
        hosts.withLock { hosts in
            var state = hosts[host] ?? State(clock: SilenceClock(now: now))
            state.clock.begin(at: now)
            hosts[host] = state
        }
    }

    /// A request to `host` ended with `answer`.
    func end(_ host: String, _ answer: Answer) {
        let now = ContinuousClock.now
        hosts.withLock { hosts in
            guard var state = hosts[host] else { return }
            switch answer {
            case .delivered:
                state.undeliveredInARow = 0
                state.failedInARow = 0
                state.clock.end(at: now, heard: true)
            case .gone:
                // Not silence: the clock restarts. Not a delivery: the run goes on.
                state.undeliveredInARow += 1
                state.clock.end(at: now, heard: true)
            case .failed:
                state.undeliveredInARow += 1
                state.failedInARow += 1
                state.clock.end(at: now, heard: false)
            case .notAsked:
                state.clock.end(at: now, heard: false)
            }
            hosts[host] = state
        }
    }

    /// Gives `host` up at once: every request to it would fail the same way (its TLS
    /// certificate is not accepted). Not said through `onGiveUp`: the caller says it.
    /// - Returns: true for the one caller that gave it up (the others find it done).
    func giveUp(_ host: String, because reason: String) -> Bool {
        let now = ContinuousClock.now
        return hosts.withLock { hosts in
            var state = hosts[host] ?? State(clock: SilenceClock(now: now))
            guard state.givenUp == nil else { return false }
            state.givenUp = reason
            hosts[host] = state
            return true
        }
    }

    /// Why `host` is given up, or nil while it is not. The first call that finds it so
    /// tells `onGiveUp`.
    func givenUp(_ host: String) -> String? {
        let now = ContinuousClock.now
        let (reason, newly) = hosts.withLock { hosts -> (String?, Bool) in
            guard var state = hosts[host] else { return (nil, false) }
            if let reason = state.givenUp { return (reason, false) }
            if state.undeliveredInARow >= failureLimit, state.failedInARow >= failuresNeeded {
                let gone = state.undeliveredInARow - state.failedInARow
                state.givenUp = gone == 0 ? "it failed \(state.failedInARow) files in a row"
                    : "it delivered none of its last \(state.undeliveredInARow) files (\(state.failedInARow) failed, \(gone) answered 404/410)"
            } else if state.clock.isSilent(at: now, budget: budget) {
                state.givenUp = "it delivered no file for \(SilenceClock.spell(budget))"
            }
            hosts[host] = state
            return (state.givenUp, state.givenUp != nil)
        }
        if newly, let reason { onGiveUp(host, reason) }
        return reason
    }
}

/// A fetch stopped because its host was given up meanwhile.
struct HostGivenUp: Error, CustomStringConvertible {
    var reason: String
    var description: String { "not finished: \(reason)" }
}
