import Foundation

/// An exclusive lock on a mirror folder, held for the life of a writing command.
///
/// `flock` on the mirror folder itself: a lock file can be unlinked while a run holds
/// it (and a second run then locks a new file at the same path and runs beside the
/// first), but the folder cannot go away without the mirror going with it. The
/// kernel drops the lock when the process dies, however it dies, so a lock left by a
/// killed run never blocks the next one.
///
/// `.pokesync.lock` is flocked too, so that an older pokesync (which locks only the
/// file) is kept out as well, and it holds the holder's pid so that a refusal can name it.
package final class MirrorLock {
    private let folderDescriptor: Int32
    private let fileDescriptor: Int32
    package let path: String

    /// - Throws: `MirrorError.foreignOwner` (exit 77) before anything is made when root asks for
    ///   another user's mirror (`MirrorOwner`); `MirrorError.locked` (exit 75) at once when
    ///   another process holds it; `LocalFileError` (exit 74) when the folder or the lock
    ///   file cannot be opened.
    package init(layout: MirrorLayout) throws {
        path = layout.lockFile.path
        try MirrorOwner.check(layout)
        try FileSystem.createDirectory(layout.root)
        folderDescriptor = open(layout.root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderDescriptor >= 0 else { throw LocalFileError(path: layout.root.path, errno: errno) }
        fileDescriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fileDescriptor >= 0 else {
            let code = errno
            close(folderDescriptor)
            throw LocalFileError(path: path, errno: code)
        }
        guard flock(folderDescriptor, LOCK_EX | LOCK_NB) == 0, flock(fileDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            close(fileDescriptor)
            close(folderDescriptor)
            throw MirrorError.locked(mirror: layout.root.path, holderPID: holder.flatMap { Int32($0) })
        }
        let pid = "\(getpid())\n"
        ftruncate(fileDescriptor, 0)
        _ = pid.withCString { pwrite(fileDescriptor, $0, strlen($0), 0) }
    }

    /// The pid in the lock file, if that process is alive (a killed run leaves a stale pid).
    package static func holderPID(layout: MirrorLayout) -> Int32? {
        guard let text = try? String(contentsOf: layout.lockFile, encoding: .utf8),
              let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), kill(pid, 0) == 0 else { return nil }
        return pid
    }

    deinit {
        ftruncate(fileDescriptor, 0)
        flock(fileDescriptor, LOCK_UN)
        close(fileDescriptor)
        flock(folderDescriptor, LOCK_UN)
        close(folderDescriptor)
    }
}
