import Foundation
import PokeHTTP
import PokeSQLite
import PokeSyncCore

/// The store's files as a connection found them: the store file's device and inode (and
/// size and time, for a file opened immutable), and the inodes of its `-wal` and `-shm`.
struct StoreFiles: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int
    var wal: UInt64?
    var shm: UInt64?

    /// What is at the store's paths now; nil when the store file is not there.
    static func current(_ layout: MirrorLayout) -> StoreFiles? {
        let path = layout.storeFile.path
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        func inode(_ suffix: String) -> UInt64? {
            var other = stat()
            return stat(path + suffix, &other) == 0 ? UInt64(other.st_ino) : nil
        }
        return StoreFiles(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                          modified: Int(info.modificationNanoseconds),
                          wal: inode("-wal"), shm: inode("-shm"))
    }

    /// True when `now` shows a store no longer the one opened as `self`: another file at
    /// the path (a restore, an rsync), or the `-wal`/`-shm` it reads through removed or
    /// replaced (a connection still holding the old ones would never see a new commit,
    /// and would read pages checkpointed under it as damaged).
    func isReplaced(by now: StoreFiles, immutable: Bool) -> Bool {
        if now.device != device || now.inode != inode { return true }
        if immutable { return now.size != size || now.modified != modified }
        if let wal, now.wal != wal { return true }
        if let shm, now.shm != shm { return true }
        return false
    }
}

/// The store `serve` reads, behind one lock for every worker, reopened when its files are
/// replaced under it (looked at every `checkSeconds`, and at once after an error): a
/// replacement that cannot be opened leaves the old file served.
///
/// One connection for the process: SQLite shares a file's `-shm` mapping among the
/// connections of a process, so a new connection opened beside an old one would read
/// through the removed `-shm` too; only closing every old one first gets a fresh one.
/// The render threads take turns on it for what the cache does not hold (inflating,
/// rendering and compressing happen outside the lock); a worker's look at the version
/// does not wait for them (``useIfFree(_:)``).
final class StoreKeeper: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written only inside `lock`.
    private let lock = NSLock()
    let layout: MirrorLayout
    private var store: Store?
    private var files: StoreFiles?
    private var immutable: Bool
    private var checkedAt: Double
    private var generationCount = 0
    static let checkSeconds = 0.25

    /// Opens the store read-only; in a folder where SQLite cannot make the `-shm` it needs
    /// (a read-only mirror), as an immutable file.
    /// - Throws: `StoreError` (missing, corrupt), `DatabaseError`.
    init(layout: MirrorLayout) throws {
        self.layout = layout
        (store, immutable) = try Self.open(layout)
        files = StoreFiles.current(layout)
        checkedAt = monotonicSeconds()
    }

    private static func open(_ layout: MirrorLayout) throws -> (Store, Bool) {
        do {
            return (try Store(layout: layout, create: false, readOnly: true), false)
        } catch let error as DatabaseError where error.primaryCode == 8 || error.primaryCode == 14 {
            // SQLITE_READONLY or SQLITE_CANTOPEN: no -shm and none can be made here.
            return (try Store(layout: layout, create: false, readOnly: true, immutable: true), true)
        }
    }

    /// Runs `body` with the store (and its generation: it grows at each reopen), alone.
    /// Reopens first when the files were replaced; `recheck` looks now rather than at
    /// most every `checkSeconds`.
    /// - Throws: what `body` throws; the reopen's error when the new store cannot be opened
    ///   (tried again by the next call).
    func use<T>(recheck: Bool = false, _ body: (Store, Int) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try locked(recheck: recheck, body)
    }

    /// As ``use(recheck:_:)``, but only when no other thread holds the store: nil at once
    /// when one does (a render thread reading a body), rather than waiting for it. A
    /// worker that waited here would keep every connection it serves waiting too.
    func useIfFree<T>(_ body: (Store, Int) throws -> T) throws -> T? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try locked(recheck: false, body)
    }

    private func locked<T>(recheck: Bool, _ body: (Store, Int) throws -> T) throws -> T {
        let now = monotonicSeconds()
        if recheck || store == nil || now - checkedAt >= Self.checkSeconds {
            checkedAt = now
            if let current = StoreFiles.current(layout),
               store == nil || files.map({ $0.isReplaced(by: current, immutable: immutable) }) ?? true {
                try reopen(current)
            }
        }
        guard let store else { throw StoreError.missing(layout.display(layout.storeFile)) }
        return try body(store, generationCount)
    }

    /// Times the store was reopened since the server started (replaced under it): the
    /// first open, in init, is generation 0.
    var reopenings: Int { lock.lock(); defer { lock.unlock() }; return generationCount }

    /// Why the store cannot be read now, or nil when it can: its file is missing, cannot be
    /// read (its or its folder's permissions: the old connection still serves, but the next
    /// `sync` or a restart would fail), was replaced by one that cannot be opened, or
    /// reading the latest version fails.
    func problem() -> String? {
        // access(2), not open(2): closing a descriptor of the store would drop the locks
        // SQLite holds on it (POSIX locks are the process's, per file).
        let path = layout.storeFile.path
        if access(path, R_OK) != 0 {
            let reason = errno
            if reason == ENOENT { return "the store \(layout.display(layout.storeFile)) is missing" }
            return "the store \(layout.display(layout.storeFile)) cannot be read: \(String(cString: strerror(reason)))"
        }
        do {
            return try use(recheck: true) { store, _ -> String? in
                guard let current = StoreFiles.current(layout) else {
                    return "the store \(layout.display(layout.storeFile)) is missing"
                }
                if let files, files.isReplaced(by: current, immutable: immutable) {
                    return "the store \(layout.display(layout.storeFile)) was replaced by a file that cannot be opened"
                }
                guard try store.latestVersionNumber() != nil else { return "no version is published" }
                return nil
            }
        } catch {
            return "the store \(layout.display(layout.storeFile)) cannot be read: \(error)"
        }
    }

    /// Opens the store's files as they are now. The same store file with its `-wal`/`-shm`
    /// removed: the old connection is closed first (see the type's comment). Another
    /// file: it is opened first, and one that is no readable store (garbage, half copied)
    /// leaves the old connection serving, tried again at the next look.
    private func reopen(_ current: StoreFiles) throws {
        if let files, files.device == current.device, files.inode == current.inode { store = nil }
        do {
            let (fresh, freshImmutable) = try Self.open(layout)
            store = fresh
            immutable = freshImmutable
            files = StoreFiles.current(layout)
            generationCount += 1
        } catch where store != nil {
            return
        }
    }
}
