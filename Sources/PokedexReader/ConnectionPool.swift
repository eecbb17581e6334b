import Foundation
import PokeLocking
import PokeSQLite

/// A small pool of read-only `immutable=1` connections to one database file, handed out
/// one per read so that reads from many threads run side by side (GRDB's `DatabasePool`
/// in miniature: an immutable file needs no writer and no snapshot bookkeeping).
///
/// - The first connection is opened by the caller (``Pokedex`` checks the schema with it)
///   and stays open as long as the pool: it holds the file even if its folder is deleted.
/// - Others open lazily, up to `capacity`, only when every open one is busy; each has its
///   own statement cache and a small page cache (`pageCacheKilobytes`).
/// - When all `capacity` are busy, a read waits for one to come back: a synchronous read
///   on an NSCondition, an async one as a queued callback (no thread held meanwhile).
/// - A connection that cannot be opened later (an update deleted the version folder the
///   path names) is not an error: the pool stops growing and shares the ones it has,
///   which still read the deleted file. ``Pokedex/needsReopen`` tells the app to move on.
final class ConnectionPool: Sendable {
    /// The resolved file every connection opens (never `current`: all see one version).
    let path: String
    private let pageCacheKilobytes: Int
    private let state: Locked<State>

    // @unchecked Sendable: a connection (not Sendable) is used by one thread at a time,
    // between its check-out and check-in, and sits here only while no thread uses it (idle)
    // or beside the thread it is bound to; a waiter (not Sendable: it captures its read's
    // continuation or handoff) is called once, by the thread that checks a connection in.
    private struct State: @unchecked Sendable {
        var idle: [Database]
        var opened: Int
        /// Nil until the pool first needs a second connection (then `defaultCapacity`):
        /// ProcessInfo costs a quarter MB an app that reads from one thread need not pay.
        var capacity: Int?
        /// Reads waiting for a connection, in arrival order.
        var waiters: [(Database) -> Void] = []
        /// Per connection, the serial queue async reads on it run on (see ``queue(for:)``).
        var queues: [ObjectIdentifier: DispatchQueue] = [:]
        /// Connections async reads have bound to the thread running their closure.
        var bound: [(thread: pthread_t, database: Database)] = []
    }

    /// The pool's default size: one connection per core, at least 2, at most 8.
    static var defaultCapacity: Int { min(8, max(2, ProcessInfo.processInfo.activeProcessorCount)) }

    /// A pool whose first connection, already open, is `first`.
    init(first: Database, path: String, capacity: Int? = nil, pageCacheKilobytes: Int) {
        self.path = path
        self.state = Locked(State(idle: [first], opened: 1, capacity: capacity.map { max(1, $0) }))
        self.pageCacheKilobytes = pageCacheKilobytes
    }

    /// Opens one more read-only connection to `path`.
    static func open(path: String, pageCacheKilobytes: Int) throws(DatabaseError) -> Database {
        // immutable=1: a version's database is never changed, so SQLite may skip locking
        // and never needs a -journal, -wal or -shm beside it (read-only media works).
        let database = try Database.readerConnection(path: path, mode: .immutable)
        try? database.setPageCache(kilobytes: pageCacheKilobytes)
        return database
    }

    /// How many connections are open now (for tests and the bench).
    var openedCount: Int {
        state.withLock { $0.opened }
    }

    /// Runs `body` with a connection of its own, waiting while all are busy; or with the
    /// connection an async read has bound to this thread, so that a query inside its
    /// closure never waits for a second one (which could wait forever when every
    /// connection is held that way).
    func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        if let database = connectionBoundToCurrentThread() { return try body(database) }
        let database = checkOut()
        defer { checkIn(database) }
        return try body(database)
    }

    /// The serial Dispatch queue async reads on `database` run on, made on first use.
    ///
    /// One per connection rather than one concurrent queue: a serial queue gets a thread
    /// of its own when it needs one, while a concurrent queue's items share the global
    /// threads, which on Linux are also Swift's cooperative pool (as many as cores); a
    /// long read there would hold up every task. At most one read per connection runs,
    /// so these queues never hold more threads than the pool has connections.
    func queue(for database: Database) -> DispatchQueue {
        state.withLock { state in
            if let queue = state.queues[ObjectIdentifier(database)] { return queue }
            let queue = DispatchQueue(label: "PokedexReader.read.\(state.queues.count + 1)")
            state.queues[ObjectIdentifier(database)] = queue
            return queue
        }
    }

    /// Marks `database`, checked out by an async read, as used by the calling thread.
    func bind(_ database: Database) {
        state.withLock { $0.bound.append((pthread_self(), database)) }
    }

    /// Ends ``bind(_:)``.
    func unbind(_ database: Database) {
        state.withLock { $0.bound.removeAll { $0.database === database } }
    }

    /// The connection bound to the calling thread, if any.
    func connectionBoundToCurrentThread() -> Database? {
        let thread = pthread_self()
        return state.withLock { $0.bound.first { pthread_equal($0.thread, thread) != 0 }?.database }
    }

    /// A connection for the calling thread, which waits (NSCondition) while all are busy.
    func checkOut() -> Database {
        let handoff = Handoff()
        checkOut { handoff.put($0) }
        return handoff.take()
    }

    /// Calls `handler` with a connection: at once (on this thread) when one is idle or may
    /// be opened, else later, on the thread that checks one in. Waiting reads are served
    /// first come, first served, sync and async alike; an async read waits without
    /// holding a thread.
    func checkOut(then handler: @escaping (Database) -> Void) {
        let step = state.withLock { state -> CheckOutStep in
            if let database = state.idle.popLast() { return .idle(database) }
            let capacity = state.capacity ?? Self.defaultCapacity
            state.capacity = capacity
            if state.opened < capacity {
                state.opened += 1
                return .open
            }
            state.waiters.append(handler)
            return .wait
        }
        switch step {
        case .idle(let database):
            handler(database)
        case .open:
            // Opened outside the lock: other reads go on meanwhile.
            if let database = try? Self.open(path: path, pageCacheKilobytes: pageCacheKilobytes) {
                return handler(database)
            }
            // The file is gone (or no more descriptors): share the connections there are.
            let shared = state.withLock { state -> Database? in
                state.opened -= 1
                state.capacity = state.opened
                if let database = state.idle.popLast() { return database }
                state.waiters.append(handler)
                return nil
            }
            if let shared { handler(shared) }
        case .wait:
            break
        }
    }

    /// What ``checkOut(then:)`` decided under the lock, done outside it.
    private enum CheckOutStep {
        case idle(Database)
        case open
        case wait
    }

    /// Gives a connection back: to the first waiting read, else to the idle ones.
    func checkIn(_ database: Database) {
        let next = state.withLock { state -> ((Database) -> Void)? in
            if state.waiters.isEmpty {
                state.idle.append(database)
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?(database)
    }

    /// One connection passed from the thread that checks it in to a thread waiting for it.
    // NSCondition, not Locked: `take()` waits for `put(_:)`, which a lock cannot do.
    // @unchecked Sendable: `database` is reached only while `condition` is locked.
    private final class Handoff: @unchecked Sendable {
        private let condition = NSCondition()
        private var database: Database?

        func put(_ database: Database) {
            condition.lock()
            self.database = database
            condition.signal()
            condition.unlock()
        }

        func take() -> Database {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let database { return database }
                condition.wait()
            }
        }
    }
}
