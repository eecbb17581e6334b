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
    /// - Parameter heavy: a child that works for seconds (pokesync, a Python oracle) first
    ///   waits for one of ``ChildSlots/shared``'s slots; a quick tool (`ss`, `tar`, `chmod`)
    ///   starts at once, since a test may run it while something else's clock runs.
    func runToExit(heavy: Bool = false) async throws {
        let exit = ProcessExit(of: self)
        if heavy {
            try await ChildSlots.shared.running { try run(); await exit.wait() }
        } else {
            try run()
            await exit.wait()
        }
    }
}

/// How many heavy children the tests' runners run at once. Waiting for a child no longer holds a
/// cooperative thread, so nothing else bounds them: every test of a full run would start its
/// child at once (a load average of 18 on two cores), and each child, the stand-in's start
/// among them, would take many times its time. A test waiting for a slot holds no thread.
actor ChildSlots {
    /// Four at once: two cores kept busy while children wait on their servers and disks.
    static let shared = ChildSlots(count: 4)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    /// Runs `body` holding a slot: it waits (holding no thread) while all are taken.
    nonisolated func running<T>(_ body: () async throws -> T) async rethrows -> T {
        await take()
        do {
            let value = try await body()
            await give()
            return value
        } catch {
            await give()
            throw error
        }
    }

    private func take() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func give() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()  // the slot passes straight to the next
        }
    }
}
