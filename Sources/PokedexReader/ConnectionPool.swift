import Foundation
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
// @unchecked Sendable: `idle`, `opened`, `capacity`, `waiters`, `queues` and `bound` are
// reached only while `condition` is locked; a connection (not Sendable) is used by one thread at a time, between its
// check-out and check-in. NSCondition, not Synchronization: macOS 14 / iOS 17.
final class ConnectionPool: @unchecked Sendable {
    /// The resolved file every connection opens (never `current`: all see one version).
    let path: String
    private let pageCacheKilobytes: Int
    private let condition = NSCondition()
    private var idle: [Database]
    private var opened: Int
    /// Nil until the pool first needs a second connection (then `defaultCapacity`):
    /// ProcessInfo costs a quarter MB an app that reads from one thread need not pay.
    private var capacity: Int?
    /// Reads waiting for a connection, in arrival order.
    private var waiters: [(Database) -> Void] = []
    /// Per connection, the serial queue async reads on it run on (see ``queue(for:)``).
    private var queues: [ObjectIdentifier: DispatchQueue] = [:]
    /// Connections async reads have bound to the thread running their closure.
    private var bound: [(thread: pthread_t, database: Database)] = []

    /// The pool's default size: one connection per core, at least 2, at most 8.
    static var defaultCapacity: Int { min(8, max(2, ProcessInfo.processInfo.activeProcessorCount)) }

    /// A pool whose first connection, already open, is `first`.
    init(first: Database, path: String, capacity: Int? = nil, pageCacheKilobytes: Int) {
        self.path = path
        self.idle = [first]
        self.opened = 1
        self.capacity = capacity.map { max(1, $0) }
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
        condition.lock()
        defer { condition.unlock() }
        return opened
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
        condition.lock()
        defer { condition.unlock() }
        if let queue = queues[ObjectIdentifier(database)] { return queue }
        let queue = DispatchQueue(label: "PokedexReader.read.\(queues.count + 1)")
        queues[ObjectIdentifier(database)] = queue
        return queue
    }

    /// Marks `database`, checked out by an async read, as used by the calling thread.
    func bind(_ database: Database) {
        condition.lock()
        bound.append((pthread_self(), database))
        condition.unlock()
    }

    /// Ends ``bind(_:)``.
    func unbind(_ database: Database) {
        condition.lock()
        bound.removeAll { $0.database === database }
        condition.unlock()
    }

    /// The connection bound to the calling thread, if any.
    func connectionBoundToCurrentThread() -> Database? {
        condition.lock()
        defer { condition.unlock() }
        let thread = pthread_self()
        return bound.first { pthread_equal($0.thread, thread) != 0 }?.database
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
        condition.lock()
        if let database = idle.popLast() {
            condition.unlock()
            return handler(database)
        }
        let capacity = self.capacity ?? Self.defaultCapacity
        self.capacity = capacity
        if opened < capacity {
            opened += 1
            condition.unlock()
            // Opened outside the lock: other reads go on meanwhile.
            if let database = try? Self.open(path: path, pageCacheKilobytes: pageCacheKilobytes) {
                return handler(database)
            }
            condition.lock()
            // The file is gone (or no more descriptors): share the connections there are.
            opened -= 1
            self.capacity = opened
            if let database = idle.popLast() {
                condition.unlock()
                return handler(database)
            }
        }
        waiters.append(handler)
        condition.unlock()
    }

    /// Gives a connection back: to the first waiting read, else to the idle ones.
    func checkIn(_ database: Database) {
        condition.lock()
        guard waiters.isEmpty else {
            let next = waiters.removeFirst()
            condition.unlock()
            return next(database)
        }
        idle.append(database)
        condition.unlock()
    }

    /// One connection passed from the thread that checks it in to a thread waiting for it.
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
