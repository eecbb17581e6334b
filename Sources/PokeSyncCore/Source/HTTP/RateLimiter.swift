import PokeLocking

/// A request-rate cap shared by every request of one client (`--rate`).
///
/// A token bucket holding one token: requests are spaced `1/requestsPerSecond`
/// apart, with no burst, which is what a fair-use policy asks of a crawler.
/// Each caller reserves the next free slot under a lock, then sleeps until it;
/// callers therefore go out in the order they arrived.
package final class RateLimiter: Sendable {
    /// The configured rate.
    package let requestsPerSecond: Double
    private let interval: Duration
    private let clock = ContinuousClock()
    private let nextSlot: Locked<ContinuousClock.Instant?> = Locked(nil)

    /// - Parameter requestsPerSecond: the cap; must be greater than zero.
    package init(requestsPerSecond: Double) {
        precondition(requestsPerSecond > 0, "a rate must be positive")
        self.requestsPerSecond = requestsPerSecond
        self.interval = .nanoseconds(Int64((1e9 / requestsPerSecond).rounded()))
    }

    /// Waits until the caller may send one request.
    /// - Throws: `CancellationError` if the waiting task is cancelled; its slot is
    ///   then left unused rather than handed to someone else.
    package func acquire() async throws {
        try Task.checkCancellation()
        let now = clock.now
        let slot = nextSlot.withLock { next -> ContinuousClock.Instant in
            let slot = max(now, next ?? now)
            next = slot.advanced(by: interval)
            return slot
        }
        if slot > now {
            try await Task.sleep(until: slot, clock: clock)
        }
    }
}
