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

    @Test func shortYieldsNeverPause() {
        var policy = CoreYield()
        // A client beside serve: yields back within tens of microseconds, now and then one long.
        var now = 1.0
        for round in 0 ..< 50 {
            now = Self.yields(100, away: 0.00005, into: &policy, from: now)
            now = Self.yields(round % 5 == 0 ? 5 : 1, away: 0.004, into: &policy, from: now)
        }
        #expect(policy.pausedUntil == 0)
        #expect(policy.nextPause == CoreYield.firstPause)
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
        now = Self.yields(CoreYield.window, away: 0.00005, into: &policy, from: policy.pausedUntil)
        #expect(policy.nextPause == CoreYield.firstPause)
        #expect(policy.pausedUntil < now)
    }

    @Test func longYieldsSpreadOverWindowsDoNotAddUp() {
        var policy = CoreYield()
        // Fewer than the limit in each window of 128: each window starts counting anew.
        var now = 1.0
        for _ in 0 ..< 20 {
            now = Self.yields(CoreYield.window - (CoreYield.longYieldsToPause - 1), away: 0.00005, into: &policy, from: now)
            now = Self.yields(CoreYield.longYieldsToPause - 1, away: 0.002, into: &policy, from: now)
        }
        #expect(policy.pausedUntil == 0)
    }
}
