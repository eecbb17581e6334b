import Foundation
import PokeArchive
import PokeLocking

/// Watches the hosts linked files come from, and gives one up for the rest of the run
/// when it stops delivering, or lies (the thresholds are ``FileHostLimits``'):
///
/// - a run of `failureLimit` files without a file (200) or a 304, among which at least a
///   quarter failed outright (5xx, timeouts, an error page, too large);
/// - more than half of its recent files (the last 100, once it settled 20) failed outright:
///   the files it does deliver no longer hide a host that fails most of the others;
/// - the files it failed cost the run more than ``FileHostLimits/failureTime`` (their
///   time, retries included, over the run's request slots): a host failing fewer than half
///   of its files slowly cannot take the night either;
/// - neither a file nor a 404/410 for `budget` while requests to it were outstanding (a
///   host dripping a byte a second fails no request quickly, it only never finishes one);
/// - the same new bytes for ``FileHostLimits/placeholderFiles`` files that held other bytes
///   (a placeholder image: see ``placeholder(_:held:new:size:)``).
///
/// Slowness is never counted: a host that delivers, however slowly, is not given up.
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
        /// The last files settled, failed outright or not.
        var recent = RecentFiles()
        /// The time its failed files took, over the run's request slots.
        var failureTime = Duration.zero
        /// Files that held other bytes, by the new bytes the host answered for them.
        var changedTo: [SHA256Digest: Int] = [:]
        /// The bytes found to be the host's placeholder.
        var placeholder: SHA256Digest?
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
    /// The run's request slots (`--concurrency`): failed files' time is divided among them.
    let slots: Int
    /// Told once for each host given up, with why.
    let onGiveUp: @Sendable (_ host: String, _ reason: String) -> Void
    private let hosts = Locked([String: State]())

    init(failureLimit: Int = FileHostLimits.undeliveredInARow, budget: Duration, slots: Int = 1,
         onGiveUp: @escaping @Sendable (_ host: String, _ reason: String) -> Void = { _, _ in }) {
        self.failureLimit = max(1, failureLimit)
        self.budget = budget
        self.slots = max(1, slots)
        self.onGiveUp = onGiveUp
    }

    /// A request to `host` starts.
    /// - Returns: when, for ``end(_:_:since:at:)``.
    @discardableResult
    func begin(_ host: String, at now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        hosts.withLock { hosts in
            var state = hosts[host] ?? State(clock: SilenceClock(now: now))
            state.clock.begin(at: now)
            hosts[host] = state
        }
        return now
    }

    /// A request to `host`, begun at `start`, ended with `answer`.
    func end(_ host: String, _ answer: Answer, since start: ContinuousClock.Instant, at now: ContinuousClock.Instant = .now) {
        hosts.withLock { hosts in
            guard var state = hosts[host] else { return }
            switch answer {
            case .delivered:
                state.undeliveredInARow = 0
                state.failedInARow = 0
                state.recent.add(failed: false)
                state.clock.end(at: now, heard: true)
            case .gone:
                // Not silence: the clock restarts. Not a delivery: the run goes on.
                state.undeliveredInARow += 1
                state.recent.add(failed: false)
                state.clock.end(at: now, heard: true)
            case .failed:
                state.undeliveredInARow += 1
                state.failedInARow += 1
                state.recent.add(failed: true)
                state.failureTime += (now - start) / slots
                state.clock.end(at: now, heard: false)
            case .notAsked:
                state.clock.end(at: now, heard: false)
            }
            hosts[host] = state
        }
    }

    /// Whether the `size` bytes `new` that `host` delivered for a file the latest version
    /// holds as `held` (nil: a file it does not hold) are the host's placeholder: the same
    /// bytes it answered for ``FileHostLimits/placeholderFiles`` files that held other
    /// bytes. The call that finds them so gives the host up (told through `onGiveUp`) and
    /// gets `.found`: the files it answered them for before are the caller's to refuse.
    func placeholder(_ host: String, held: SHA256Digest?, new: SHA256Digest, size: Int) -> Placeholder {
        let (verdict, newly) = hosts.withLock { hosts -> (Placeholder, String?) in
            var state = hosts[host] ?? State(clock: SilenceClock())
            if state.placeholder == new { return (.again, nil) }
            guard let held, held != new else { return (.no, nil) }
            let count = state.changedTo[new, default: 0] + 1
            state.changedTo[new] = count
            var newly: String?
            if count >= FileHostLimits.placeholderFiles {
                state.placeholder = new
                if state.givenUp == nil {
                    let reason = "it answered the same \(size) bytes for \(count) files that held other bytes (a placeholder): refused"
                    state.givenUp = reason
                    newly = reason
                }
            }
            hosts[host] = state
            return (state.placeholder == new ? .found : .no, newly)
        }
        if let newly { onGiveUp(host, newly) }
        return verdict
    }

    /// What ``placeholder(_:held:new:size:)`` found.
    enum Placeholder {
        /// Not a placeholder (yet).
        case no
        /// The bytes just became the host's placeholder: refuse them wherever they came.
        case found
        /// The placeholder found before.
        case again
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
    func givenUp(_ host: String, at now: ContinuousClock.Instant = .now) -> String? {
        let (reason, newly) = hosts.withLock { hosts -> (String?, Bool) in
            guard var state = hosts[host] else { return (nil, false) }
            if let reason = state.givenUp { return (reason, false) }
            state.givenUp = whyGiveUp(state, at: now)
            hosts[host] = state
            return (state.givenUp, state.givenUp != nil)
        }
        if newly, let reason { onGiveUp(host, reason) }
        return reason
    }

    /// Which rule gives the host up now, said as the run's line says it; nil for none.
    private func whyGiveUp(_ state: State, at now: ContinuousClock.Instant) -> String? {
        if state.undeliveredInARow >= failureLimit, state.failedInARow >= failuresNeeded {
            let gone = state.undeliveredInARow - state.failedInARow
            return gone == 0 ? "it failed \(state.failedInARow) files in a row"
                : "it delivered none of its last \(state.undeliveredInARow) files (\(state.failedInARow) failed, \(gone) answered 404/410)"
        }
        let recent = state.recent
        if recent.count >= FileHostLimits.filesBeforeTheShare,
           Double(recent.failures) > FileHostLimits.failureShare * Double(recent.count) {
            return "it failed \(recent.failures) of its last \(recent.count) files (more than \(FileHostLimits.percent(FileHostLimits.failureShare)))"
        }
        if state.failureTime > FileHostLimits.failureTime {
            return "the files it failed cost the run more than \(SilenceClock.spell(FileHostLimits.failureTime))"
                + (slots > 1 ? " of its \(slots) request slots" : "")
        }
        if state.clock.isSilent(at: now, budget: budget) {
            return "it delivered no file for \(SilenceClock.spell(budget))"
        }
        return nil
    }
}

/// Whether each of a host's last ``FileHostLimits/recentFiles`` settled files failed.
struct RecentFiles {
    private var failed: [Bool] = []
    private var oldest = 0
    /// How many of them failed outright.
    private(set) var failures = 0
    var count: Int { failed.count }

    mutating func add(failed failure: Bool) {
        if failed.count < FileHostLimits.recentFiles {
            failed.append(failure)
        } else {
            if failed[oldest] { failures -= 1 }
            failed[oldest] = failure
            oldest = (oldest + 1) % failed.count
        }
        if failure { failures += 1 }
    }
}

/// A fetch stopped because its host was given up meanwhile.
struct HostGivenUpError: Error, CustomStringConvertible {
    var reason: String
    var description: String { "not finished: \(reason)" }
}
