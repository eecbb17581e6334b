import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The updater's default ``DownloadTransport``: one URLSession a GET, made from the
/// settings' configuration (copied; its cache off), the delegate run inline on Linux
/// (``InlineDelegateQueue``) so the network waits for the receiver.
///
/// `@unchecked Sendable`: the configuration is only ever copied, never changed.
struct URLSessionDownloadTransport: DownloadTransport, @unchecked Sendable {
    let configuration: URLSessionConfiguration?

    func get(_ url: URL, headers: [String: String], timeout: TimeInterval, receiver: any DownloadReceiver) async throws {
        try await URLSessionDownload(url: url, headers: headers, timeout: timeout, configuration: configuration,
                                     receiver: receiver).run()
    }
}

/// One GET of ``URLSessionDownloadTransport``: hands the head and the body to the
/// receiver, and answers its caller as soon as the receiver stops the transfer or the
/// task is cancelled (the task itself is cancelled from another thread: see
/// ``InlineDelegateQueue``).
///
/// `@unchecked Sendable`: URLSession calls the delegate on its own queue while `run()`
/// waits; every mutable field is guarded by `lock`.
private final class URLSessionDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let url: URL
    private let headers: [String: String]
    private let timeout: TimeInterval
    private let configuration: URLSessionConfiguration?
    private let receiver: any DownloadReceiver
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var continuation: CheckedContinuation<Void, any Error>?
    /// The outcome, once known (the first one wins).
    private var outcome: Result<Void, any Error>?
    /// Whether the task's cancel was asked for: once is enough.
    private var cancelRequested = false

    init(url: URL, headers: [String: String], timeout: TimeInterval, configuration: URLSessionConfiguration?,
         receiver: any DownloadReceiver) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.configuration = configuration
        self.receiver = receiver
    }

    func run() async throws {
        try Task.checkCancellation()
        let configuration = (configuration?.copy() as? URLSessionConfiguration) ?? URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        #if os(Linux)
        let queue: OperationQueue? = InlineDelegateQueue(name: "pokedexreader.download.delegate")
        #else
        let queue: OperationQueue? = nil
        #endif
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        // Off this task: invalidating waits for the session's work queue, which libcurl may
        // keep busy decoding a refused gzip body (FoundationNetworking cannot turn its
        // decoding off), and the caller must have its answer at once.
        defer {
            // invalidateAndCancel cancels what still runs, with cancelLater's race: a task
            // whose whole body is in only waits for its completion, so the session just ends.
            let finishing = lock.withLock { task?.hasReceivedItsWholeBody ?? false }
            DispatchQueue.global().async { finishing ? session.finishTasksAndInvalidate() : session.invalidateAndCancel() }
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                var request = URLRequest(url: url)
                for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                let task = session.dataTask(with: request)
                let early = lock.withLock { () -> Result<Void, any Error>? in
                    self.continuation = continuation
                    self.task = task
                    return outcome
                }
                if let early { finish(early) } else { task.resume() }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }

    /// Ends the GET with `result` (the first one wins), resumes the waiter, and stops the task.
    private func finish(_ result: Result<Void, any Error>, completed: Bool = false) {
        let (waiting, task, final): (CheckedContinuation<Void, any Error>?, URLSessionDataTask?, Result<Void, any Error>) = lock.withLock {
            if outcome == nil { outcome = result }
            let waiting = continuation
            continuation = nil
            let first = !cancelRequested && !completed
            if first { cancelRequested = true }
            return (waiting, first ? self.task : nil, outcome!)
        }
        if let task { task.cancelLater() }
        waiting?.resume(with: final)
    }

    private var stopped: Bool { lock.withLock { outcome != nil } }

    private static func fields(_ response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            fields[((name.base as? String) ?? "\(name)").lowercased()] = (value as? String) ?? "\(value)"
        }
        return fields
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // Never followed here: the receiver sees the 3xx (with the Location header itself, not
        // the request FoundationNetworking made of it) and decides.
        completionHandler(nil)
        if !stopped { _ = receiver.head(status: response.statusCode, headers: Self.fields(response), url: response.url ?? url) }
        finish(.success(()))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let http = response as? HTTPURLResponse, !stopped else { completionHandler(.allow); return }
        if receiver.head(status: http.statusCode, headers: Self.fields(http), url: http.url ?? url) {
            completionHandler(.allow)
        } else {
            completionHandler(.cancel)
            // FoundationNetworking ignores the `.cancel` disposition (libcurl goes on): finish
            // cancels the task for real, off this queue, which the cancel may wait for.
            finish(.success(()))
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard !stopped else { return }
        if !data.withUnsafeBytes({ receiver.body($0) }) { finish(.success(())) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let error else { finish(.success(()), completed: true); return }
        let timedOut = (error as? URLError)?.code == .timedOut
        // A certificate this device does not trust: say so, and how to trust one.
        let reason = timedOut ? "timed out: nothing received for \(Int(timeout)) s"
            : TLSFailure(error, url: url)?.description ?? error.localizedDescription
        finish(.failure(UpdateError.unreachable(source: url.absoluteString, reason: reason)), completed: true)
    }
}
