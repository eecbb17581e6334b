import Foundation
@testable import PokedexReader
import Testing

/// Reads from many tasks run side by side on a bounded pool of connections that all
/// read the version that was current at open, even once it is deleted.
@Suite struct ConnectionPoolTests {
    /// Counts the reads inside their closure at once, and the most seen.
    final class Overlap: @unchecked Sendable {  // @unchecked: every field under `lock`
        private let lock = NSLock()
        private var inside = 0
        private(set) var most = 0
        func enter() { lock.lock(); inside += 1; most = max(most, inside); lock.unlock() }
        func leave() { lock.lock(); inside -= 1; lock.unlock() }
    }

    @Test func twoReadsAreInsideTheirClosuresAtOnce() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            try await ReaderFixtures.install(ReaderFixtures.sample2026, version: 1, into: folder)
            let pokedex = try Pokedex(databaseAt: folder.appendingPathComponent("current/pokedex.sqlite"), maximumConnections: 2)
            let overlap = Overlap()
            // Each read waits (up to a minute) for the other to be inside too: one lock around
            // one connection would let only one in at a time, and both would give up.
            let met = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        try await pokedex.read { db in
                            overlap.enter()
                            defer { overlap.leave() }
                            _ = try db.pokemon(id: 25)
                            let deadline = Date().addingTimeInterval(60)
                            while overlap.most < 2 && Date() < deadline { usleep(1_000) }
                            return overlap.most == 2
                        }
                    }
                }
                return try await group.reduce(true) { $0 && $1 }
            }
            #expect(met)
            #expect(pokedex.pool.openedCount == 2)
        }
    }

    @Test func manyReadsShareABoundedPoolAndGetTheSameAnswers() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            try await ReaderFixtures.install(ReaderFixtures.sample2026, version: 1, into: folder)
            let pokedex = try Pokedex(databaseAt: folder.appendingPathComponent("current/pokedex.sqlite"), maximumConnections: 3)
            let ids = try pokedex.list(offset: 0, limit: 100).map(\.id)
            let expected = try ids.map { try pokedex.pokemon(id: $0, languages: ["en"]) }
            let overlap = Overlap()
            let answers = try await withThrowingTaskGroup(of: [PokemonDetail?].self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await pokedex.read { db in
                            overlap.enter()
                            defer { overlap.leave() }
                            usleep(20_000)  // hold the connection so that others must wait or open one
                            return try ids.map { try db.pokemon(id: $0, languages: ["en"]) }
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 12)
            #expect(answers.allSatisfy { $0 == expected })
            #expect(overlap.most <= 3)
            #expect(pokedex.pool.openedCount <= 3)
            // The synchronous methods from many threads, as before, through the same pool.
            // (On a Dispatch thread: concurrentPerform must not hold a cooperative thread.)
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    DispatchQueue.concurrentPerform(iterations: 8) { _ in
                        #expect((try? ids.map { try pokedex.pokemon(id: $0, languages: ["en"]) }) == expected)
                    }
                    done.resume()
                }
            }
        }
    }

    /// A connection opened after `current` moved still reads the version opened first.
    @Test func laterConnectionsReadTheVersionOpenedNotTheNewCurrent() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            try await ReaderFixtures.install(ReaderFixtures.sample2025, version: 1, into: folder)
            let pokedex = try Pokedex(databaseAt: folder.appendingPathComponent("current/pokedex.sqlite"), maximumConnections: 4)
            try await ReaderFixtures.install(ReaderFixtures.sample2026, version: 2, into: folder)
            // Four threads inside at once (up to a minute): the pool must open four connections.
            // Threads of their own: Dispatch may run only as many queue items as cores.
            let overlap = Overlap()
            let versions = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await withCheckedThrowingContinuation { (done: CheckedContinuation<String?, any Error>) in
                            Thread.detachNewThread {
                                done.resume(with: Result {
                                    try pokedex.read { database in
                                        overlap.enter()
                                        defer { overlap.leave() }
                                        let deadline = Date().addingTimeInterval(60)
                                        while overlap.most < 4 && Date() < deadline { usleep(1_000) }
                                        return try database.row("SELECT value FROM meta WHERE key = 'version'") { $0.text(0) }
                                    }
                                })
                            }
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(overlap.most == 4)
            #expect(pokedex.pool.openedCount == 4)
            #expect(versions == ["1", "1", "1", "1"])
        }
    }

    /// An update deletes the opened version's folder: a read that needs a connection the
    /// pool has not opened yet waits for an open one instead of failing.
    @Test func aDeletedVersionFolderDoesNotFailLaterReads() async throws {
        try await ReaderFixtures.withTemporaryFolder { folder in
            try await ReaderFixtures.install(ReaderFixtures.sample2025, version: 1, into: folder)
            let pokedex = try Pokedex(databaseAt: folder.appendingPathComponent("current/pokedex.sqlite"), maximumConnections: 2)
            #expect(try pokedex.pokemonCount() == 17)
            try await ReaderFixtures.install(ReaderFixtures.sample2026, version: 2, into: folder)
            try ReaderFixtures.delete(version: 1, in: folder)
            let overlap = Overlap(), release = AsyncReadTests.Flag()
            // One read holds the only open connection while another needs a second one.
            async let holding: String? = pokedex.read { db in
                overlap.enter()
                defer { overlap.leave() }
                while !release.isSet { usleep(1_000) }
                return try db.metaValue("version")
            }
            while overlap.most == 0 { try await Task.sleep(for: .milliseconds(5)) }
            // The other read on a thread of its own: it blocks until the first one ends.
            async let other: PokemonDetail? = withCheckedThrowingContinuation { done in
                Thread.detachNewThread { done.resume(with: Result { try pokedex.pokemon(id: 10263) }) }
            }
            try await Task.sleep(for: .milliseconds(100))
            release.set()
            #expect(try await holding == "1")
            #expect(try await other?.name != nil)
            #expect(pokedex.pool.openedCount == 1)
            #expect(try pokedex.search("pika").isEmpty == false)
        }
    }
}
