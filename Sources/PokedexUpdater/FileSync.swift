import Foundation
import PokeLocking
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An fsync a cancelled update need not wait for. fsync cannot be interrupted, and the
/// database's (tens of MB just written) can take hundreds of ms on a busy disk: it runs
/// on a thread of its own while the step waits, looking at its stop flag every 5 ms. A
/// cancelled step returns at once; the fsync finishes alone and closes its descriptor,
/// while the cleanup removes the file (POSIX allows both at once).
final class FileSync: Sendable {
    /// Files smaller than this are synced in place: a thread costs more than their fsync.
    static let threadedBytes = 1 << 20

    /// Signalled by the fsync's thread when it is done: the step waits on it with a timeout,
    /// which a lock cannot do.
    private let done = DispatchSemaphore(value: 0)
    /// The fsync's errno (0 for success), written before `done` is signalled.
    private let result = Locked<Int32>(0)

    /// Flushes `url`'s bytes to disk.
    /// - Throws: ``UpdateError/io(path:reason:)`` when it cannot be opened or synced;
    ///   `CancellationError` when `stop` is raised first.
    static func sync(_ url: URL, stop: StopFlag) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw UpdateError.io(path: url.path, reason: String(cString: strerror(errno))) }
        var status = stat()
        if fstat(descriptor, &status) == 0, Int(status.st_size) < threadedBytes {
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else { throw UpdateError.io(path: url.path, reason: String(cString: strerror(errno))) }
            return
        }
        let sync = FileSync()
        let thread = Thread {
            let failure = fsync(descriptor) == 0 ? 0 : errno
            sync.result.withLock { $0 = failure }
            close(descriptor)
            sync.done.signal()
        }
        thread.stackSize = 64 * 1024
        thread.start()
        while sync.done.wait(timeout: .now() + .milliseconds(5)) == .timedOut {
            try stop.check()
        }
        let failure = sync.result.withLock { $0 }
        guard failure == 0 else { throw UpdateError.io(path: url.path, reason: String(cString: strerror(failure))) }
    }
}
