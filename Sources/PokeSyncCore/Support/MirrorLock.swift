import Foundation

/// An exclusive lock on a mirror folder, held for the life of a writing command.
///
/// `flock` on `.pokesync.lock`: the kernel drops it when the process dies, however
/// it dies, so a lock left by a killed run never blocks the next one. The file holds
/// the holder's pid so that the refusal can name it.
public final class MirrorLock {
    private let descriptor: Int32
    public let path: String

    /// - Throws: `LockError.held` (exit 75) at once when another process holds it;
    ///   `LocalFileError` (exit 74) when the lock file cannot be made.
    public init(layout: MirrorLayout) throws {
        path = layout.lockFile.path
        try FileSystem.createDirectory(layout.root)
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LocalFileError(path: path, errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            close(descriptor)
            throw LockError(mirror: layout.root.path, holderPID: holder.flatMap { Int32($0) })
        }
        let pid = "\(getpid())\n"
        ftruncate(descriptor, 0)
        _ = pid.withCString { write(descriptor, $0, strlen($0)) }
    }

    deinit {
        ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

public struct LockError: PokeSyncFailure {
    public var mirror: String
    public var holderPID: Int32?
    public var exitStatus: ExitStatus { .locked }
    public var description: String {
        let holder = holderPID.map { "pid \($0)" } ?? "another process"
        return "another pokesync (\(holder)) holds the lock on \(mirror); try again when it has finished"
    }
}
