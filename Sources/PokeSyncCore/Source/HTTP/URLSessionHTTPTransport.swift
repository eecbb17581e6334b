import Foundation
import PokedexReader
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPClient``'s exchanges over one URLSession and ``HTTPSessionDelegate``: the
/// transport of Apple platforms (Linux uses ``CurlHTTPTransport``).
final class URLSessionHTTPTransport: HTTPTransport {
    private let configuration: HTTPClientConfiguration
    private let session: URLSession
    private let delegate: HTTPSessionDelegate

    /// An ephemeral session: no URL cache, no cookies.
    init(configuration: HTTPClientConfiguration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpMaximumConnectionsPerHost = configuration.maxConnectionsPerHost
        sessionConfiguration.timeoutIntervalForRequest = TimeInterval(configuration.timeout)
        // No cookies: PokeAPI sets none.
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpAdditionalHeaders = [
            "User-Agent": configuration.userAgent, "Accept": "application/json",
        ]
        delegate = HTTPSessionDelegate(allowRedirect: configuration.allowRedirect)
        session = URLSession(configuration: sessionConfiguration, delegate: delegate,
                             delegateQueue: InlineDelegateQueue(name: "pokesync.http.delegate"))
    }

    func invalidate() {
        session.finishTasksAndInvalidate()
    }

    func exchange(_ url: URL, headers: [String: String], cap: Int) async throws -> HTTPResponse {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData,
                                 timeoutInterval: TimeInterval(configuration.timeout))
        request.setValue(configuration.userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return try await perform(request, url: url, cap: cap)
    }

    /// Where one attempt's data task stands, for the cancellation handler.
    private enum TaskState: Sendable {
        case pending
        case running(URLSessionDataTask)
        case cancelled
    }

    /// Runs one data task through the delegate; cancelling the awaiting task cancels it.
    private func perform(_ request: URLRequest, url: URL, cap: Int) async throws -> HTTPResponse {
        let state = Locked(TaskState.pending)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let started = state.withLock { state -> Bool in
                    guard case .pending = state else { return false }
                    let task = session.dataTask(with: request)
                    // Resumed under the lock: the cancellation handler then only ever
                    // meets a running task (cancelling a suspended one may never complete).
                    delegate.start(task, url: url, cap: cap, deadline: configuration.attemptDeadline, continuation: continuation)
                    state = .running(task)
                    return true
                }
                if !started {
                    continuation.resume(throwing: CancellationError())  // cancelled first: nothing sent
                }
            }
        } onCancel: {
            let running = state.withLock { state -> URLSessionDataTask? in
                defer { state = .cancelled }
                if case .running(let task) = state { return task }
                return nil
            }
            // Not here: this handler runs under the Swift task's status lock, and cancel()
            // may wait for the session's work queue, which may be resuming this very task
            // from a delegate callback (InlineDelegateQueue runs them there).
            running?.cancelLater()
        }
    }
}
