import Foundation
import PokeLocking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The updater's default ``DownloadTransport``: one URLSession a GET, made from the
/// settings' configuration (copied; its cache off), the delegate run inline on Linux
/// (``InlineDelegateQueue``) so the network waits for the receiver.
struct URLSessionDownloadTransport: DownloadTransport {
    /// The app's configuration (nil for an ephemeral one), copied for each session.
    let configuration: SessionConfigurationCopy?

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
/// URLSession calls the delegate on its own queue while `run()` waits: what changes is one
/// `State`, reached only under its lock.
private final class URLSessionDownload: NSObject, URLSessionDataDelegate, Sendable {
    private let url: URL
    private let headers: [String: String]
    private let timeout: TimeInterval
    private let configuration: SessionConfigurationCopy?
    private let receiver: any DownloadReceiver
    private let state = Locked(State())

    private struct State: Sendable {
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<Void, any Error>?
        /// The outcome, once known (the first one wins).
        var outcome: Result<Void, any Error>?
        /// Whether the task's cancel was asked for: once is enough.
        var cancelRequested = false
    }

    init(url: URL, headers: [String: String], timeout: TimeInterval, configuration: SessionConfigurationCopy?,
         receiver: any DownloadReceiver) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.configuration = configuration
        self.receiver = receiver
    }

    func run() async throws {
        try Task.checkCancellation()
        let configuration = configuration?.copy() ?? URLSessionConfiguration.ephemeral
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
            let finishing = state.withLock { $0.task?.hasReceivedItsWholeBody ?? false }
            DispatchQueue.global().async { finishing ? session.finishTasksAndInvalidate() : session.invalidateAndCancel() }
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                var request = URLRequest(url: url)
                for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                let task = session.dataTask(with: request)
                let early = state.withLock { state -> Result<Void, any Error>? in
                    state.continuation = continuation
                    state.task = task
                    return state.outcome
                }
                if let early { finish(early) } else { task.resume() }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }

    /// Ends the GET with `result` (the first one wins), resumes the waiter, and stops the task.
    private func finish(_ result: Result<Void, any Error>, completed: Bool = false) {
        let (waiting, task, final) = state.withLock { state
            -> (CheckedContinuation<Void, any Error>?, URLSessionDataTask?, Result<Void, any Error>) in
            let final = state.outcome ?? result
            state.outcome = final
            let waiting = state.continuation
            state.continuation = nil
            let first = !state.cancelRequested && !completed
            if first { state.cancelRequested = true }
            return (waiting, first ? state.task : nil, final)
        }
        if let task { task.cancelLater() }
        waiting?.resume(with: final)
    }

    private var stopped: Bool { state.withLock { $0.outcome != nil } }

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
