import Foundation
import PokeSQLite

/// `pokesync backup DEST`: a whole, consistent copy of a mirror folder that a plain `cp`
/// or `rsync` cannot make while the mirror is in use.
///
/// It holds the mirror's lock, so no `sync`, `prune` or `export` changes a file while it
/// copies (one that starts meanwhile is refused with 75, as a second nightly run is), and
/// it copies the store with SQLite's online backup API, so the commits still in
/// `store.sqlite-wal` are in the copy however many readers (`serve`, `status`) hold the
/// store open. Every other file is copied as it is, its mode and time kept, and files that
/// are hard links of each other (a sprite in `sprites/` and its object in `objects/`) stay
/// one file with several names. Left out: the lock, `.tmp/` (a run's scratch) and `logs/`
/// (the nightly job's, written without the lock). The copy is built beside `DEST` and
/// renamed into place, so `DEST` exists only whole.
package enum MirrorBackup {
    /// What a backup copied.
    package struct Report: Sendable {
        /// The latest version in the copy, if any.
        package var latestVersion: Int?
        /// Files copied (the store counts as one), names made as hard links, and the bytes written.
        package var files: Int, links: Int, bytes: Int64
    }

    /// Names in the mirror folder that are not copied: the store (copied through SQLite),
    /// its journal files, the lock, a run's scratch and the nightly job's logs.
    static let leftOut: Set<String> = ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite-journal",
                                       ".pokesync.lock", ".tmp", "logs"]

    /// - Throws: `MirrorError.foreignOwner` (77), `.locked` (75), `StoreError.missing` (64) for a
    ///   folder with no store, `MirrorError.backupInsideMirror` (64) for a `destination` inside the mirror,
    ///   `LocalFileError` (74) for a file that cannot be read or written.
    package static func run(layout: MirrorLayout, destination: URL) throws -> Report {
        // Before the lock, which would make a missing folder.
        guard FileManager.default.fileExists(atPath: layout.storeFile.path) else {
            throw StoreError.missing(layout.display(layout.storeFile))
        }
        let destination = destination.standardizedFileURL
        // A copy inside the mirror would copy itself (its staging folder is in the walk).
        let root = layout.root.resolvingSymlinksInPath().path
        let parent = destination.deletingLastPathComponent().resolvingSymlinksInPath().path
        if parent == root || parent.hasPrefix(root + "/") { throw MirrorError.backupInsideMirror(destination.path, mirror: layout.root.path) }
        let lock = try MirrorLock(layout: layout)
        defer { withExtendedLifetime(lock) {} }
        let staging = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).pokesync-backup-\(getpid())")
        try? FileManager.default.removeItem(at: staging)
        try FileSystem.createDirectory(staging)
        do {
            var copier = TreeCopier()
            try copier.copyFolder(layout.root, to: staging, skipping: leftOut)
            let store = try Database(path: layout.storeFile.path, mode: .readOnly)
            do { try store.backup(to: staging.appendingPathComponent("store.sqlite").path) } catch {
                throw LocalFileError(path: layout.storeFile.path, reason: "cannot back it up: \(error.message)")
            }
            copier.files += 1
            let latest = try Store(layout: MirrorLayout(root: staging), create: false, readOnly: true).latestVersion()?.number
            FileSystem.flush(staging)  // the copy on disk before its name says it is whole
            guard rename(staging.path, destination.path) == 0 else { throw LocalFileError(path: destination.path, errno: errno) }
            return Report(latestVersion: latest, files: copier.files, links: copier.links, bytes: copier.bytes)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }
}

/// Copies a folder tree file by file, keeping modes, modification times, symbolic links,
/// and hard links between files of the tree (by device and inode).
struct TreeCopier {
    private var copied: [String: String] = [:]  // "device:inode" → the copy's path
    var files = 0, links = 0
    var bytes: Int64 = 0

    mutating func copyFolder(_ source: URL, to target: URL, skipping: Set<String> = []) throws {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: source.path).sorted() } catch {
            throw LocalFileError(path: source.path, reason: "cannot list it: \(FileSystem.reason(error))")
        }
        for name in names where !skipping.contains(name) {
            let from = source.appendingPathComponent(name), to = target.appendingPathComponent(name)
            var info = stat()
            guard lstat(from.path, &info) == 0 else { throw LocalFileError(path: from.path, errno: errno) }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                guard mkdir(to.path, info.st_mode & 0o7777) == 0 || errno == EEXIST else { throw LocalFileError(path: to.path, errno: errno) }
                // mkdir's mode passes through the umask; the folder keeps the mirror's own.
                guard chmod(to.path, info.st_mode & 0o7777) == 0 else { throw LocalFileError(path: to.path, errno: errno) }
                try copyFolder(from, to: to)
                try Self.keepTime(of: info, on: to)
            case S_IFLNK:
                let destination: String
                do { destination = try FileManager.default.destinationOfSymbolicLink(atPath: from.path) } catch {
                    throw LocalFileError(path: from.path, reason: "cannot read the link: \(FileSystem.reason(error))")
                }
                guard symlink(destination, to.path) == 0 else { throw LocalFileError(path: to.path, errno: errno) }
            case S_IFREG:
                try copyFile(from, to: to, info: info)
            default:
                continue  // sockets, fifos: nothing of a mirror's
            }
        }
    }

    private mutating func copyFile(_ from: URL, to: URL, info: stat) throws {
        let key = "\(info.st_dev):\(info.st_ino)"
        if info.st_nlink > 1, let first = copied[key] {
            guard link(first, to.path) == 0 else { throw LocalFileError(path: to.path, errno: errno) }
            links += 1
            return
        }
        let input = open(from.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw LocalFileError(path: from.path, errno: errno) }
        defer { close(input) }
        let output = open(to.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 0o7777)
        guard output >= 0 else { throw LocalFileError(path: to.path, errno: errno) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue }; throw LocalFileError(path: from.path, errno: errno) }
            if count == 0 { break }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                if result < 0 { if errno == EINTR { continue }; throw LocalFileError(path: to.path, errno: errno) }
                written += result
            }
            bytes += Int64(count)
        }
        fchmod(output, info.st_mode & 0o7777)  // the umask narrowed open's mode
        try Self.keepTime(of: info, on: to)
        files += 1
        if info.st_nlink > 1 { copied[key] = to.path }
    }

    /// The source's modification time on the copy (bundles' grace period and `-newer`
    /// checks read it).
    private static func keepTime(of info: stat, on url: URL) throws {
        let nanoseconds = info.modificationNanoseconds
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var times = [time, time]
        guard utimensat(AT_FDCWD, url.path, &times, AT_SYMLINK_NOFOLLOW) == 0 else { throw LocalFileError(path: url.path, errno: errno) }
    }
}
