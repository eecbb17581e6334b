import Foundation

/// Runs an update's blocking work (file copies, extraction, hashing, SQLite, fsync) on a
/// thread of its own and awaits it with a continuation: Swift's cooperative pool has a
/// thread per core (two here), and an install that held one for seconds would stall the
/// app's other tasks, its reads' continuations among them.
///
/// Cancelling the awaiting task raises the step's ``StopFlag``; the step polls it and ends
/// with `CancellationError` within a chunk, a file or 10,000 SQLite steps. The await ends
/// only when the thread has returned, so nothing writes into the device folder after the
/// updater has cleaned up.
enum BlockingStep {
    /// - Throws: what `work` throws; `CancellationError` when the task was cancelled
    ///   before or during it (`work` checks its flag).
    static func run<T: Sendable>(_ work: @escaping @Sendable (StopFlag) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let flag = StopFlag()
        return try await withTaskCancellationHandler {
            try await runToEnd { try flag.check(); return try work(flag) }
        } onCancel: {
            flag.stop()
        }
    }

    /// Runs `work` on a thread of its own to its end, cancelled or not: the switch of
    /// `current` and what follows it, and the cleanup after a failed or cancelled update,
    /// which must finish before the update returns.
    /// - Throws: what `work` throws.
    static func runToEnd<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try work() })
            }
            // SQLite and zlib recurse modestly; 1 MB leaves room, as an app's secondary threads have.
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
