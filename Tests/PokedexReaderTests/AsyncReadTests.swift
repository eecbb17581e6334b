import Foundation
@testable import PokedexReader
import Testing

/// `try await pokedex.read { ... }`: off the caller's actor, cancellable.
@Suite struct AsyncReadTests {
    /// Set once from the read's thread, polled by the test.
    final class Flag: @unchecked Sendable {  // @unchecked: `value` only under `lock`
        private let lock = NSLock()
        private var value = false
        func set() { lock.lock(); value = true; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
        func wait() async throws { while !isSet { try await Task.sleep(for: .milliseconds(5)) } }
    }

    static func device(_ folder: URL) async throws -> Pokedex {
        try await ReaderFixtures.install(ReaderFixtures.sample2026, version: 1, into: folder)
        return try Pokedex(folder: folder)
    }

    @MainActor
    @Test func readsOffTheMainActorWithTheSameQueries() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            let pokedex = try await Self.device(folder)
            let (onMain, pikachu, page, hits) = try await pokedex.read { db in
                (Thread.isMainThread, try db.pokemon(named: "pikachu", languages: ["de"]), try db.list(offset: 0, limit: 5),
                 try db.search("pika"))
            }
            #expect(!onMain)
            #expect(pikachu == (try pokedex.pokemon(named: "pikachu", languages: ["de"])))
            #expect(pikachu?.species?.localizedName?.text == "Pikachu")
            #expect(page == (try pokedex.list(offset: 0, limit: 5)))
            #expect(hits.map(\.pokemon.name).contains("pikachu"))
        }
    }

    /// Async reads run on threads of their own (one serial queue per connection), not on
    /// the global threads Swift's tasks share (on Linux, as many as cores): four reads
    /// are inside at once on any machine, and tasks still run meanwhile. (With the global
    /// queue this passes too, but Dispatch took about 3 s to add threads on 2 cores.)
    @Test func asyncReadsDoNotHoldTheCooperativeThreads() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            try await ReaderFixtures.install(ReaderFixtures.sample2026, version: 1, into: folder)
            let pokedex = try Pokedex(databaseAt: folder.appendingPathComponent("current/pokedex.sqlite"), maximumConnections: 4)
            let overlap = ConnectionPoolTests.Overlap()
            // Each read waits (up to a minute: other suites may hold the cooperative
            // threads that start these tasks) until all four are inside.
            let sawFour = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await pokedex.read { db in
                            overlap.enter()
                            defer { overlap.leave() }
                            let deadline = Date().addingTimeInterval(60)
                            while overlap.most < 4 && Date() < deadline { usleep(1_000) }
                            return try db.pokemonCount() == 17 && overlap.most == 4
                        }
                    }
                }
                return try await group.reduce(true) { $0 && $1 }
            }
            #expect(sawFour)
        }
    }

    @Test func aCancelledTaskDoesNotStartTheRead() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            let pokedex = try await Self.device(folder)
            let ran = Flag()
            let task = Task {
                while !Task.isCancelled { await Task.yield() }
                return try await pokedex.read { db in ran.set(); return try db.pokemonCount() }
            }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(!ran.isSet)
        }
    }

    /// A query that would run for minutes stops when the task is cancelled (sqlite3_interrupt).
    @Test func cancellingInterruptsTheRunningQuery() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            let pokedex = try await Self.device(folder)
            let started = Flag()
            let task = Task {
                try await pokedex.read { db in
                    started.set()
                    return try db.bound.read { database in
                        try database.integer("""
                            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10000000000)
                            SELECT count(*) FROM n
                            """)
                    }
                }
            }
            try await started.wait()
            try await Task.sleep(for: .milliseconds(50))
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            // The connection is back in the pool and reads as before.
            #expect(try await pokedex.read { try $0.pokemonCount() } == 17)
        }
    }

    /// Cancelled between two queries of the closure: the next query throws.
    @Test func cancellingStopsTheNextQuery() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            let pokedex = try await Self.device(folder)
            let started = Flag()
            let task = Task {
                try await pokedex.read { db in
                    while true {
                        _ = try db.pokemonCount()
                        started.set()
                    }
                }
            }
            try await started.wait()
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    /// Inside the closure, the captured `Pokedex` reads on the closure's connection: with
    /// one connection in the pool, waiting for a second would wait forever.
    @Test func theCapturedPokedexInsideTheClosureUsesItsConnection() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            try await ReaderFixtures.install(ReaderFixtures.sample2026, version: 1, into: folder)
            let pokedex = try Pokedex(databaseAt: folder.appendingPathComponent("current/pokedex.sqlite"), maximumConnections: 1)
            let (count, hits) = try await pokedex.read { _ in
                (try pokedex.pokemonCount(), try pokedex.search("pikachu"))
            }
            #expect(count == 17)
            #expect(hits.first?.pokemon.name == "pikachu")
            #expect(pokedex.pool.openedCount == 1)
        }
    }

    /// `$0` is not `Sendable`, so it cannot be returned from the closure (the compiler says
    /// so); the bound `Pokedex` behind it, kept after the closure, reads through the pool.
    @Test func theBoundPokedexOutlivesItsClosure() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            let pokedex = try await Self.device(folder)
            let kept = try await pokedex.read { $0.bound }
            #expect(try kept.pokemonCount() == 17)
            let fromThreads = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try kept.pokemonCount() } }
                return try await group.reduce(0, +)
            }
            #expect(fromThreads == 4 * 17)
        }
    }
}
