import Foundation

/// The delegate queue of ``CappedDownload``'s session on Linux: it runs each delegate
/// callback at once, on the thread that delivers it, so that the network waits for the
/// delegate (the crawler's `BackpressureQueue` does the same, for the same reason).
///
/// FoundationNetworking hands each decoded piece of a body to the delegate queue with
/// `addOperation` and goes on reading at once (swift-corelibs-foundation issue 3204):
/// libcurl decodes gzip at about 1 GB/s, so a 1 MB gzip bomb had queued 1 GB of pieces
/// (1.18 GB of RSS) before the delegate refused its encoding. Run inline, the delegate
/// sees every piece before the next is decoded, and a stopped transfer's pieces are
/// dropped as they come. The delegate must never wait for the session's own work queue:
/// ``CappedDownload`` cancels from another thread.
///
/// `@unchecked Sendable`: the only state added is a lock, which is thread-safe.
final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {
    /// Recursive, in case a callback makes FoundationNetworking add another on the same thread.
    private let serial = NSRecursiveLock()

    override init() {
        super.init()
        maxConcurrentOperationCount = 1
        name = "pokedexreader.download.delegate"
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        serial.lock()
        defer { serial.unlock() }
        block()
    }
}
