import Testing
@testable import PokeHTTP

/// When a worker gives its core up after a batch of events, and when it stops: yields
/// timed by hand, so the rule is checked without depending on the scheduler.
@Suite("serve: a worker yields its core while that costs little")
struct ServeCoreYieldTests {
    /// `count` yields of `away` seconds each, the clock moving on by that much each time.
    static func yields(_ count: Int, away: Double, into policy: inout CoreYield, from start: Double) -> Double {
        var now = start
        for _ in 0 ..< count {
            now += away
            policy.record(away: away, now: now)
        }
        return now
    }

    @Test func sparseLongYieldsNeverPause() {
        var policy = CoreYield()
        // A client beside serve: yields back within tens of microseconds, now and then one
        // long, at times two in a row: never the limit within a window's length of yields.
        var now = 1.0
        for round in 0 ..< 200 {
            now = Self.yields(CoreYield.window - 3, away: 0.00005, into: &policy, from: now)
            now = Self.yields(round % 5 == 0 ? 2 : 1, away: 0.004, into: &policy, from: now)
        }
        #expect(policy.pausedUntil == 0)
    }

    @Test func theLastLongYieldNeededPausesEvenAsTheWindowsLast() {
        var policy = CoreYield()
        var now = Self.yields(CoreYield.longYieldsToPause - 1, away: 0.004, into: &policy, from: 1.0)
        now = Self.yields(CoreYield.window - CoreYield.longYieldsToPause, away: 0.00005, into: &policy, from: now)
        #expect(policy.pausedUntil == 0)
        // The window's last yield, and its last long one needed.
        now = Self.yields(1, away: 0.004, into: &policy, from: now)
        #expect(policy.pausedUntil == now + CoreYield.firstPause)
    }

    @Test func aYieldOfExactlyAMillisecondIsNotLong() {
        var policy = CoreYield()
        _ = Self.yields(CoreYield.window, away: CoreYield.longAway, into: &policy, from: 1.0)
        #expect(policy.pausedUntil == 0)
    }

    /// `afterBatch` with a clock and a yield of the test's: each yield timed by the clock,
    /// none while paused, and yielding again once the pause is over.
    @Test func noYieldWhilePausedAndYieldsAgainAfter() {
        var policy = CoreYield()
        var now = 5.0, yields = 0
        // Each yield keeps the worker away 4 ms, as CPU-bound work beside it would.
        let yieldAway = { yields += 1; now += 0.004 }
        for _ in 0 ..< CoreYield.longYieldsToPause { policy.afterBatch(clock: { now }, yield: yieldAway) }
        #expect(yields == CoreYield.longYieldsToPause)
        #expect(policy.pausedUntil == now + CoreYield.firstPause)
        for _ in 0 ..< 50 {
            now += 0.001
            policy.afterBatch(clock: { now }, yield: yieldAway)
        }
        #expect(yields == CoreYield.longYieldsToPause, "yielded while paused")
        now = policy.pausedUntil
        policy.afterBatch(clock: { now }, yield: { yields += 1 })
        #expect(yields == CoreYield.longYieldsToPause + 1)
    }

    @Test func longYieldsPauseThenDoubleThenReset() {
        var policy = CoreYield()
        // CPU-bound work beside serve: one yield in four keeps the worker away 4 ms.
        var now = 10.0
        for _ in 0 ..< CoreYield.longYieldsToPause - 1 {
            now = Self.yields(3, away: 0.00005, into: &policy, from: now)
            now = Self.yields(1, away: 0.004, into: &policy, from: now)
        }
        #expect(policy.pausedUntil == 0)
        now = Self.yields(1, away: 0.004, into: &policy, from: now)
        #expect(policy.pausedUntil == now + CoreYield.firstPause)
        #expect(policy.nextPause == CoreYield.firstPause * 2)

        // Still so after the pause: each pause twice the last, up to the longest.
        var pauses: [Double] = []
        for _ in 0 ..< 5 {
            now = Self.yields(CoreYield.longYieldsToPause, away: 0.004, into: &policy, from: policy.pausedUntil)
            pauses.append(policy.pausedUntil - now)
        }
        let expected = [0.2, 0.4, 0.8, 0.8, 0.8]
        #expect(zip(pauses, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(pauses)")

        // A window of short yields after the last pause: the next pause is the first again.
        _ = Self.yields(CoreYield.window, away: 0.00005, into: &policy, from: policy.pausedUntil)
        #expect(policy.nextPause == CoreYield.firstPause)
    }

    @Test func longYieldsSpreadOverWindowsDoNotAddUp() {
        var policy = CoreYield()
        // Fewer than the limit in each window: each window starts counting anew.
        var now = 1.0
        for _ in 0 ..< 20 {
            now = Self.yields(CoreYield.window - (CoreYield.longYieldsToPause - 1), away: 0.00005, into: &policy, from: now)
            now = Self.yields(CoreYield.longYieldsToPause - 1, away: 0.002, into: &policy, from: now)
        }
        #expect(policy.pausedUntil == 0)
    }
}
