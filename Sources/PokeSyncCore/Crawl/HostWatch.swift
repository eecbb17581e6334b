import Foundation

/// Watches the hosts linked files come from, and gives one up for the rest of the run
/// when it keeps failing: `failureLimit` files in a row, or no file at all for `budget`
/// while requests to it were outstanding (a host dripping a byte a second fails no
/// request quickly, it only never finishes one).
///
/// A given-up host's remaining files are not asked for: they are carried from the latest
/// version or left for the next run at once, so that one bad host costs the run about
/// `budget`, not its files times their retries.
final class HostWatch: Sendable {
    private struct State {
        /// Since when the host has delivered nothing while asked: its last success, or the
        /// moment requests to it began after a quiet spell.
        var anchor: ContinuousClock.Instant
        var inFlight = 0
        var failuresInARow = 0
        var givenUp: String?
    }

    let failureLimit: Int
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
            var state = hosts[host] ?? State(anchor: now)
            // A quiet spell (nothing in flight) starts the clock anew: the budget measures
            // how long requests to the host stay outstanding without a file, not how long
            // ago it last failed (a host asked again after the run's other work).
            if state.inFlight == 0 { state.anchor = now }
            state.inFlight += 1
            hosts[host] = state
        }
    }

    /// A request to `host` ended: the host answered (a file, a 304, a 404), or it failed.
    func end(_ host: String, succeeded: Bool) {
        let now = ContinuousClock.now
        hosts.withLock { hosts in
            guard var state = hosts[host] else { return }
            state.inFlight = max(0, state.inFlight - 1)
            if succeeded {
                state.failuresInARow = 0
                state.anchor = now
            } else {
                state.failuresInARow += 1
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
            var state = hosts[host] ?? State(anchor: now)
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
            if state.failuresInARow >= failureLimit {
                state.givenUp = "it failed \(state.failuresInARow) files in a row"
            } else if state.inFlight > 0, now - state.anchor > budget {
                state.givenUp = "it delivered no file for \(budget.components.seconds) s"
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
