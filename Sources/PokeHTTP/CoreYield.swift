#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a worker gives up its core after a batch of events (`sched_yield`), and when
/// it stops doing so for a while.
///
/// Why it yields: a busy worker finds sockets ready at every wait, so it never sleeps, and
/// a kernel without preemption (the benchmark machine's: HZ=250, `CONFIG_PREEMPT_NONE`)
/// takes its core back only at a scheduler tick, 4 ms. Meanwhile a thread waiting for that
/// core (a client on the same machine, a render thread) waits that long, and so do the
/// connections of a worker waiting for its turn. Yielding after each batch shares the core
/// at the batch's grain instead. With wrk on the same two cores, serve's p99 fell from
/// 5.6 ms to 0.9 ms (warm, `bench_serve.py`), its rate about the same (1.33x-1.51x nginx's
/// warm in three runs, against 1.38x).
///
/// Why it stops: a yield hands the core to whatever is runnable. When that is CPU-bound
/// work (a `yes`, a compile) it keeps the core until its tick, and the worker's share of
/// the CPU falls (serve fell to 0.6x nginx's rate with two `yes` on two cores). So each
/// yield is timed: once ``longYieldsToPause`` of a window of up to ``window`` yields kept
/// the worker away longer than ``longAway``, it stops yielding for ``firstPause``, twice
/// that after another such window, up to ``longestPause``; a window without them resets
/// the pause. An idle worker's wait is untouched: it yields only after events.
struct CoreYield {
    /// A yield away this long was taken by work that does not sleep, not by a client.
    static let longAway = 0.001
    /// Yields counted together; with wrk alone beside serve about 1 in 1,000 is long, with
    /// two `yes` 1 in 5 to 7. Each long yield the detection needs costs the worker a tick
    /// beside such work, once a pause: 4 of 32 finds it within about 25 yields (12 of 128
    /// needed about 70 and kept serve's rate a few percent lower beside two `yes`), and
    /// by chance, at 1 in 1,000, about once in 30 million windows.
    static let window = 32
    static let longYieldsToPause = 4
    static let firstPause = 0.1
    static let longestPause = 0.8

    /// Until when the worker does not yield (monotonic seconds).
    private(set) var pausedUntil = 0.0
    /// How long the next pause lasts.
    private(set) var nextPause = firstPause
    private var yields = 0
    private var longYields = 0

    /// Yields the core unless paused: what the worker calls after a batch of events.
    /// `clock` and `yield` are the monotonic clock and `sched_yield` but in tests.
    mutating func afterBatch(clock: () -> Double = monotonicSeconds, yield: () -> Void = { _ = sched_yield() }) {
        let start = clock()
        guard start >= pausedUntil else { return }
        yield()
        let end = clock()
        record(away: end - start, now: end)
    }

    /// Counts one yield that kept the worker away `away` seconds, ending at `now`.
    mutating func record(away: Double, now: Double) {
        yields += 1
        if away > Self.longAway { longYields += 1 }
        if longYields >= Self.longYieldsToPause {
            pausedUntil = now + nextPause
            nextPause = min(nextPause * 2, Self.longestPause)
        } else if yields == Self.window {
            nextPause = Self.firstPause
        } else {
            return
        }
        yields = 0
        longYields = 0
    }
}
