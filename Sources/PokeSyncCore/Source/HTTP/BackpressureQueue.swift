import Foundation

/// The delegate queue of ``HTTPClient``'s URLSession: it runs each delegate callback at once,
/// on the thread that delivers it, so that the network waits for the delegate.
///
/// FoundationNetworking (libcurl underneath) hands each piece of a body (at most 16 KB,
/// decoded) to the delegate queue with `addOperation` and goes on reading at once: nothing
/// slows the socket while the delegate falls behind (swift-corelibs-foundation issue 3204).
/// libcurl decodes gzip at about 1 GB/s, so a 2 MB gzip bomb had queued 2 GB of pieces
/// before the delegate counted past the body cap and stopped the task.
///
/// Run here, inside libcurl's write callback, the delegate sees every piece before the next
/// one is decoded: at most one piece is in flight, and a stopped transfer's pieces are
/// dropped as they come. Callbacks still run one at a time, in the order they were added,
/// as on a serial queue. The delegate must therefore never wait for the session's own work
/// queue (`URLSessionTask.cancel()` does: ``HTTPSessionDelegate`` cancels from another thread).
final class BackpressureQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: the only state added is a lock, which is thread-safe.
    /// Recursive, in case a callback makes FoundationNetworking add another on the same thread.
    private let serial = NSRecursiveLock()

    override init() {
        super.init()
        maxConcurrentOperationCount = 1
        name = "pokesync.http.delegate"
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        serial.lock()
        defer { serial.unlock() }
        block()
    }
}
