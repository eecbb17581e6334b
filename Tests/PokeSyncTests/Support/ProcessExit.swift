import Foundation

/// A child process's exit, awaited without holding a thread.
///
/// The tests run on Swift's cooperative pool, which has one thread per core (two on CI) and
/// never adds one when a thread blocks: a test sitting in `waitUntilExit()` while a whole
/// `pokesync sync` runs stalls every other async test for as long. Awaiting this instead
/// gives the thread back until Foundation reports the exit.
final class ProcessExit: @unchecked Sendable {
    private let lock = NSLock()
    private var ended = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Watches `process`; must be made before `process.run()` (Foundation on Linux takes
    /// the termination handler when it starts the child). Replaces its termination handler.
    init(of process: Process) {
        process.terminationHandler = { [self] _ in end() }
    }

    /// Returns once the child has exited (at once if it already has); its
    /// `terminationStatus` and `terminationReason` are then set.
    func wait() async {
        await withCheckedContinuation { continuation in
            // The child may have ended before this wait began: then nothing is left to wake it.
            let waitsForEnd = lock.withLock {
                if !ended { waiters.append(continuation) }
                return !ended
            }
            if !waitsForEnd { continuation.resume() }
        }
    }

    private func end() {
        let woken = lock.withLock {
            ended = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in woken { waiter.resume() }
    }
}

extension Process {
    /// Starts the child and returns once it has exited, without holding a thread meanwhile.
    func runToExit() async throws {
        let exit = ProcessExit(of: self)
        try run()
        await exit.wait()
    }
}
