import Foundation
@testable import PokeSQLite
import Testing

/// The SQLite layer on real files: transactions, error text, the immutable URI, interrupt.
@Suite struct PokeSQLiteTests {
    struct Planned: Error {}

    static func withDatabase<T>(named name: String = "test.sqlite", _ body: (Database, URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pokesqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        let database = try Database(path: url.path)
        try database.execute("CREATE TABLE t(x INTEGER PRIMARY KEY, name TEXT)")
        return try body(database, url)
    }

    @Test func aTransactionRollsBackWhenItsBodyThrows() throws {
        try Self.withDatabase { database, _ in
            #expect(throws: Planned.self) {
                try database.transaction { db in
                    try db.run("INSERT INTO t(x, name) VALUES (?, ?)", [1, "one"])
                    #expect(try db.integer("SELECT count(*) FROM t") == 1)
                    throw Planned()
                }
            }
            #expect(try database.integer("SELECT count(*) FROM t") == 0)
            let returned = try database.transaction { db in
                try db.run("INSERT INTO t(x, name) VALUES (?, ?)", [2, "two"])
                return db.changes
            }
            #expect(returned == 1)
            #expect(try database.integer("SELECT count(*) FROM t") == 1)
            // No transaction left open: another BEGIN works.
            try database.execute("BEGIN; COMMIT")
        }
    }

    @Test func anErrorNamesTheCodeTheMessageAndTheStatement() throws {
        try Self.withDatabase { database, url in
            try database.run("INSERT INTO t(x, name) VALUES (1, 'one')")
            do {
                try database.run("INSERT INTO t(x, name)\n   VALUES (1, 'again')")
                Issue.record("a duplicate key was accepted")
            } catch let error as DatabaseError {
                #expect(error.extendedCode == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY, a macro Swift does not import
                #expect(error.description == "SQLite error 1555: UNIQUE constraint failed: t.x (\(url.path))"
                        + " - while executing `INSERT INTO t(x, name) VALUES (1, 'again')`")
            }
            #expect(throws: DatabaseError.self) { try database.execute("SELECT * FROM missing") }
            do {
                _ = try database.statement("SELECT * FROM missing")
            } catch let error as DatabaseError {
                #expect(error.primaryCode == 1)  // SQLITE_ERROR
                #expect(error.description.hasPrefix("SQLite error 1: no such table: missing"))
                #expect(error.description.hasSuffix(" - while executing `SELECT * FROM missing`"))
            }
        }
    }

    @Test func theImmutableURIEscapesWhatAURIWouldReadAsSyntax() {
        #expect(Database.immutableURI("/data/a b/c?d#e%f.sqlite") == "file:/data/a b/c%3fd%23e%25f.sqlite?immutable=1")
        #expect(Database.immutableURI("/plain/pokedex.sqlite") == "file:/plain/pokedex.sqlite?immutable=1")
    }

    /// A folder and file named with `?`, `#`, `%` and spaces open immutable and read.
    @Test func anImmutableConnectionOpensAnyFileName() throws {
        try Self.withDatabase(named: "poke dex?v=1#top 100%.sqlite") { database, url in
            try database.run("INSERT INTO t(x, name) VALUES (25, 'pikachu')")
            let reader = try Database(path: url.path, mode: .immutable)
            #expect(try reader.row("SELECT name FROM t WHERE x = ?", [25]) { $0.text(0) } == "pikachu")
            // Read-only: it cannot write, and it made no file beside the database.
            #expect(throws: DatabaseError.self) { try reader.run("INSERT INTO t(x, name) VALUES (1, 'x')") }
            let siblings = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            #expect(siblings == [url.lastPathComponent])
        }
    }

    /// `interrupt()` from another thread stops a running query with SQLITE_INTERRUPT.
    @Test func interruptStopsARunningQueryFromAnotherThread() throws {
        try Self.withDatabase { database, _ in
            // @unchecked: the connection is used by the worker thread only; this thread
            // calls interrupt(), which SQLite allows from any thread.
            final class Box: @unchecked Sendable {
                let database: Database
                let done = DispatchSemaphore(value: 0)
                var result: Result<Int?, any Error>?
                init(_ database: Database) { self.database = database }
            }
            let box = Box(database)
            Thread.detachNewThread {
                box.result = Result {
                    try box.database.integer("""
                        WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10000000000)
                        SELECT count(*) FROM n
                        """)
                }
                box.done.signal()
            }
            // Interrupting before the query starts is a no-op, so keep at it until it ends.
            while box.done.wait(timeout: .now() + .milliseconds(20)) == .timedOut { database.interrupt() }
            guard case .failure(let error as DatabaseError)? = box.result else {
                Issue.record("the query was not interrupted: \(String(describing: box.result))")
                return
            }
            #expect(error.isInterrupted)
            #expect(error.description.hasPrefix("SQLite error 9: interrupted"))
            // The connection reads again afterwards.
            let count = try database.integer("SELECT count(*) FROM t")
            #expect(count == 0)
        }
    }
}
