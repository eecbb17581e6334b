import Dispatch
import Foundation
import PokeSQLite

extension Pokedex {
    /// Runs `body` off the caller's actor, on a connection of its own, and returns its
    /// answer: the way to read from async code (a SwiftUI `.task`, a view model).
    ///
    /// `$0` is a ``PokedexConnection``: the `Pokedex`'s queries (``list(offset:limit:sortedBy:languages:)``,
    /// ``pokemon(named:languages:)``, ``search(_:limit:languages:)``, ...) on one
    /// connection of the pool for the closure's run; several in one closure cost one hop.
    ///
    /// ```swift
    /// // In a @MainActor view model: the main actor is free while SQLite reads.
    /// let (pikachu, page) = try await pokedex.read { db in
    ///     (try db.pokemon(named: "pikachu"), try db.list(offset: 0, limit: 20))
    /// }
    /// ```
    ///
    /// The closure runs on its connection's serial Dispatch queue, not on Swift's
    /// cooperative thread pool, so blocking SQLite work never starves other tasks. Reads from many tasks run side by
    /// side, one connection each (one per core, 2 to 8); beyond that they wait their turn.
    ///
    /// Cancelling the task stops the read: before it starts, between two queries of the
    /// closure, or inside a running query (through `sqlite3_interrupt`); it then throws
    /// `CancellationError`.
    ///
    /// The synchronous methods stay as they are (same names, no `await`): they block the
    /// calling thread, which is fine off the main actor and for one short query.
    /// `$0` is of another type than the `Pokedex` so that the closure queries it, not the
    /// `Pokedex` it captured: only `$0` checks for cancellation before each query.
    /// - Throws: `CancellationError` when the task is cancelled; whatever `body` throws
    ///   (``PokedexError`` when a query fails).
    public func read<T: Sendable>(_ body: @escaping @Sendable (PokedexConnection) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let binding = ReadBinding()
        let bound = Pokedex(bound: self, to: binding)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                // Waits for a connection without holding a thread, then reads on the queue.
                pool.checkOut { [pool] database in
                    let lease = CheckedOut(database: database)
                    pool.queue(for: database).async {
                        continuation.resume(with: Result { try bound.runBound(binding, lease.database, body) })
                    }
                }
            }
        } onCancel: {
            binding.cancel()
        }
    }

    /// A connection checked out for one async read, on its way to the queue item that runs it.
    // @unchecked Sendable: the pool hands the connection to this read alone; it crosses
    // to the queue once and is used there by one thread until checked back in.
    private struct CheckedOut: @unchecked Sendable {
        let database: Database
    }

    /// Binds `database` to this thread, runs `body` with this bound `Pokedex`, unbinds
    /// and checks the connection back in.
    private func runBound<T>(_ binding: ReadBinding, _ database: Database, _ body: (PokedexConnection) throws -> T) throws -> T {
        defer { pool.checkIn(database) }
        try binding.bind(database)
        pool.bind(database)
        defer {
            pool.unbind(database)
            binding.unbind()
        }
        do {
            return try body(PokedexConnection(bound: self))
        } catch is PokedexError where binding.isCancelled {
            // An interrupted query surfaces as a read error; the caller asked to stop.
            throw CancellationError()
        }
    }
}
