import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A URLSession delegate queue that runs each delegate callback at once, on the thread
/// that delivers it, so that the network waits for the delegate: the updater's downloads
/// over URLSession (``URLSessionDownloadTransport``).
///
/// FoundationNetworking (libcurl underneath) hands each decoded piece of a body (at most
/// 16 KB) to the delegate queue with `addOperation` and goes on reading at once: nothing
/// slows the socket while the delegate falls behind (no back-pressure).
/// libcurl decodes gzip at about 1 GB/s, so a 1 MB gzip bomb had queued 1 GB of pieces
/// (1.18 GB of RSS) before the delegate refused it. Run here, inside libcurl's write
/// callback, the delegate sees every piece before the next one is decoded: at most one
/// piece is in flight, and a stopped transfer's pieces are dropped as they come. Callbacks
/// still run one at a time, in the order they were added, as on a serial queue. The
/// delegate must therefore never wait for the session's own work queue
/// (`URLSessionTask.cancel()` does): cancel from another thread.
///
/// `@unchecked Sendable`, as `OperationQueue` itself is: the only state added is `serial`,
/// a lock, which is thread-safe. It is an `NSRecursiveLock`, not `Locked`: it guards no
/// value but runs the callbacks one at a time, and a callback may add another.
final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {
    /// Recursive, in case a callback makes FoundationNetworking add another on the same thread.
    private let serial = NSRecursiveLock()

    /// - Parameter name: the queue's name, for debuggers.
    init(name: String) {
        super.init()
        maxConcurrentOperationCount = 1
        self.name = name
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        serial.lock()
        defer { serial.unlock() }
        block()
    }
}

extension URLSessionTask {
    /// Cancels the task, from another thread than the delegate queue (see
    /// ``InlineDelegateQueue``), unless it has finished meanwhile. FoundationNetworking's
    /// `cancel()` of a task whose completion is being delivered at that moment fails the
    /// task a second time and traps ("Trying to access a behaviour for a task that in not
    /// in the registry", seen once under a loaded test run): a task that finished while
    /// this cancel waited for a thread is left alone, and so is one that has received every
    /// byte its `Content-Length` announced: its completion is on its way (it may be queued
    /// on the session's work queue already, where no state says so yet) and ends it anyway.
    /// What is left of the window is a completion queued with bytes still uncounted.
    func cancelLater() {
        DispatchQueue.global().async {
            guard self.state == .running || self.state == .suspended, !self.hasReceivedItsWholeBody else { return }
            self.cancel()
        }
    }

    /// Every byte the response's `Content-Length` announced has arrived. Compared for
    /// equality: a gzip body counts its decoded bytes, which pass the compressed length at
    /// once, and such a body (a bomb the delegate refused) must still be cancelled.
    var hasReceivedItsWholeBody: Bool {
        let expected = countOfBytesExpectedToReceive
        return expected > 0 && countOfBytesReceived == expected
    }
}
