import Foundation
import PokeLocking
import PokeSQLite

/// The versioned store of one mirror: content-addressed documents, the versions that
/// name them, and the frontier of the run in progress, in one SQLite file (WAL mode).
///
/// One connection per process, reached only through `read`/`write`, which serialize on
/// a `Locked` value; callers get `Sendable` values back. Another process may read the same
/// file at the same time (`pokesync status` during a sync).
package final class Store: Sendable {
    package let layout: MirrorLayout
    /// Held around every use of `database`. SQLite connections are not thread-safe
    /// (opened NOMUTEX), so this lock is what makes sharing the store between tasks safe;
    /// that is why `database` can be `nonisolated(unsafe)`.
    private let lock = Locked(())
    nonisolated(unsafe) private let database: Database

    static let schemaVersion = 1

    /// Opens the store of `layout`, creating it when `create` is true and there is none.
    /// A file that is there is a store already: an empty or foreign one is corruption,
    /// never a fresh start (which would begin the history again beside the old diffs).
    /// - Throws: `StoreError.missing` when there is no store and `create` is false;
    ///   `StoreError.corrupt` (exit 65) when the file is not a pokesync store;
    ///   `DatabaseError` for I/O failures (exit 74).
    /// - Parameter immutable: with `readOnly`, opens the file as one that never changes
    ///   (SQLite's `immutable=1`: no `-wal` or `-shm` needed, so a read-only folder works).
    package init(layout: MirrorLayout, create: Bool, readOnly: Bool = false, immutable: Bool = false) throws {
        self.layout = layout
        let path = layout.storeFile.path
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists && !create { throw StoreError.missing(layout.display(layout.storeFile)) }
        if !exists { try Self.createStore(layout) }
        let database = try Database(path: path, mode: readOnly ? (immutable ? .immutable : .readOnly) : .readWrite)
        do {
            try Self.checkSchema(database, display: layout.display(layout.storeFile))
            if !readOnly {
                // WAL: readers never block the writer; NORMAL: a process crash loses
                // nothing committed, a power cut at most the last commits, never consistency.
                try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
                try Self.migrate(database)
                try Self.applyOriginRule(database, display: layout.display(layout.storeFile))
                try Self.collectLinks(database, display: layout.display(layout.storeFile))
            }
        } catch let error as DatabaseError where error.isCorruption {
            throw StoreError.corrupt(layout.display(layout.storeFile), error.message)
        }
        self.database = database
    }

    /// Builds a new store aside and renames it into place, so that a store file that
    /// exists is always a whole one (a crash part way leaves only a scratch file).
    static func createStore(_ layout: MirrorLayout) throws {
        try FileSystem.createDirectory(layout.scratchFolder)
        let aside = layout.scratchFolder.appendingPathComponent("store-\(UUID().uuidString).sqlite")
        defer { unlink(aside.path) }
        do {
            let database = try Database(path: aside.path, mode: .readWrite)
            // auto_vacuum only takes effect before the first table: the frontier of a
            // big run is freed at publish, and its pages are then given back.
            try database.execute("PRAGMA auto_vacuum=INCREMENTAL;")
            try migrate(database)
        }
        guard rename(aside.path, layout.storeFile.path) == 0 else {
            throw LocalFileError(path: layout.storeFile.path, errno: errno)
        }
    }

    /// Runs `body`, which only reads, with the connection (outside any transaction of its
    /// own: a `snapshot` around it gives it one consistent view).
    package func read<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { _ in try body(database) }
    }

    /// Runs statements SQLite refuses inside a transaction (VACUUM, checkpoints) or that
    /// open and close one by hand (a snapshot's BEGIN and COMMIT). Writes go through `write`.
    func outsideTransaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { _ in try body(database) }
    }

    /// Runs `body`, which reads through this store, against one snapshot of it: a
    /// `prune` or `sync` committing meanwhile (another process) is not seen half-way.
    /// For single-task readers (export, diff, verify); WAL keeps the snapshot cheap.
    package func snapshot<T>(_ body: () throws -> T) throws -> T {
        try outsideTransaction { database in try database.execute("BEGIN DEFERRED; SELECT COUNT(*) FROM meta;") }
        defer { try? outsideTransaction { database in try database.execute("COMMIT") } }
        return try body()
    }

    /// Runs `body` in one transaction: all of it is committed, or none.
    package func write<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { _ in try database.transaction(body) }
    }
}

/// A store that cannot be used, or a run it refuses to publish.
package enum StoreError: PokeSyncError, Equatable {
    case missing(String)
    case corrupt(String, String)
    case newerSchema(String, Int)
    /// Lists shrank past the guard: an upstream outage must never reach phones as a
    /// version that deletes their data. Nothing is published; the next run lists those
    /// kinds again, and `--allow-shrink` accepts the loss.
    case listsShrank([ListShrink])
    /// Another process resumed or discarded this process's run of the mirror (two writers
    /// on one mirror, the lock bypassed): publishing its frontier could publish half a version.
    case runTakenOver(mirror: String, mode: RunMode)

    package var description: String {
        switch self {
        case .missing(let path): return "no mirror store at \(path): run `pokesync full` first"
        case .corrupt(let path, let reason): return "the store \(path) is corrupt: \(reason)"
        case .newerSchema(let path, let version):
            return "the store \(path) has schema \(version), newer than this pokesync understands"
        case .listsShrank(let shrinks):
            let kinds = shrinks.map { "\($0.kind.apiName): \($0.listed) listed, \($0.previousCount) in version \($0.previousVersion)" }
            return kinds.joined(separator: "; ") + "; refusing to publish (--allow-shrink to accept)"
        case .runTakenOver(let mirror, let mode):
            return "another pokesync took over this \(mode.rawValue) run of \(mirror) while it ran; nothing published by this one"
        }
    }

    package var code: ErrorCode {
        switch self {
        case .missing: .storeMissing
        case .corrupt: .storeCorrupt
        case .newerSchema: .storeNewerSchema
        case .listsShrank: .listsShrank
        case .runTakenOver: .runTakenOver
        }
    }
}
