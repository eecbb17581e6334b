import Foundation
import PokeLocking
import PokeSQLite

/// The state of one async ``Pokedex/read(_:)``: the connection its closure reads with,
/// the thread that runs the closure, and whether the task was cancelled.
///
/// The bound `Pokedex` uses the connection only on the thread that runs the closure; a
/// call from any other thread (the closure handing `$0` to other threads, or `$0` kept
/// after the closure returned) takes a connection from the pool instead, so a connection
/// is never used by two threads at once.
final class ReadBinding: Sendable {
    private let state = Locked(State())

    // @unchecked Sendable: `database` (not Sendable) is used outside the lock only by its
    // owner thread; other threads only call `interrupt()` on it, which SQLite allows from
    // any thread, and only while it is bound (under the lock), so an interrupt never
    // reaches another read.
    private struct State: @unchecked Sendable {
        var database: Database?
        var owner: pthread_t?
        var cancelled = false
    }

    var isCancelled: Bool {
        state.withLock { $0.cancelled }
    }

    /// Binds `database` to the calling thread for the closure's run.
    /// - Throws: `CancellationError` when the task was cancelled already.
    func bind(_ database: Database) throws {
        try state.withLock { state in
            if state.cancelled { throw CancellationError() }
            state.database = database
            state.owner = pthread_self()
        }
    }

    /// Ends the binding: later calls on the bound `Pokedex` use the pool.
    func unbind() {
        state.withLock { state in
            state.database = nil
            state.owner = nil
        }
    }

    /// The bound connection when the caller is the thread running the closure, else nil.
    /// - Throws: `CancellationError` when the task was cancelled: each query checks.
    func connectionForCurrentThread() throws -> Database? {
        try state.withLock { state in
            if state.cancelled { throw CancellationError() }
            guard let owner = state.owner, pthread_equal(owner, pthread_self()) != 0 else { return nil }
            return state.database
        }
    }

    /// Marks the read cancelled and stops the query running on its connection, if any.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.database?.interrupt()
        }
    }
}
