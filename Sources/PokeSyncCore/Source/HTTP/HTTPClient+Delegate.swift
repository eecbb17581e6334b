import Foundation
import PokedexReader
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession delegate behind ``URLSessionHTTPTransport`` (Apple platforms): accumulates each task's body,
/// stops a body at the size cap, stops a task at its deadline, vets redirects, and
/// completes each awaiting continuation exactly once.
///
/// Per-task state lives in a dictionary keyed by task identifier behind a `Locked` value:
/// tasks are registered from the caller's thread and driven from the session's
/// delegate queue (an `InlineDelegateQueue`). A transfer is removed from the dictionary
/// before its continuation is resumed, so a second completion finds nothing to resume.
final class HTTPSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    // @unchecked: the task is a thread-safe object (cancel from any thread) that is not
    // marked Sendable; the rest is read and written under the lock only.
    private struct Transfer: @unchecked Sendable {
        let url: URL
        /// The largest (decoded) body accepted.
        let cap: Int
        let task: URLSessionTask
        let continuation: CheckedContinuation<HTTPResponse, any Error>
        /// When the attempt must be over (`DispatchTime` uptime, nanoseconds).
        let deadline: UInt64
        /// The deadline in seconds, for the error message.
        let deadlineSeconds: Int
        var response: HTTPURLResponse?
        var body = Data()
        var redirects = 0
        /// Set when this delegate stopped the task on purpose; reported instead of
        /// the `URLError(.cancelled)` the cancellation produces.
        var failure: HTTPError?
    }

    static let maxRedirects = HTTPClient.maxRedirects

    private let transfers = Locked<[Int: Transfer]>([:])
    private let allowRedirect: @Sendable (URL) -> Bool

    /// One timer for all transfers, checking their deadlines a few times a second.
    /// A timer per attempt cost a dispatch source made, armed and cancelled on every
    /// request, and a wake-up of dispatch's timer thread each time: a measurable share
    /// of a crawl's CPU and context switches, for a deadline that almost never fires.
    // nonisolated(unsafe): a dispatch source is thread-safe, only not marked Sendable;
    // it is set once here and only cancelled after.
    nonisolated(unsafe) private let sweeper: DispatchSourceTimer

    /// - Parameter sweepInterval: how often deadlines are checked; an attempt ends at most
    ///   this much after its deadline.
    init(allowRedirect: @escaping @Sendable (URL) -> Bool,
         sweepInterval: DispatchTimeInterval = .milliseconds(250)) {
        self.allowRedirect = allowRedirect
        sweeper = DispatchSource.makeTimerSource(queue: .global())
        super.init()
        sweeper.schedule(deadline: .now() + sweepInterval, repeating: sweepInterval, leeway: .milliseconds(50))
        sweeper.setEventHandler { [weak self] in
            self?.expireOverdue()
        }
        sweeper.resume()
    }

    deinit {
        sweeper.cancel()
    }

    /// Starts `task`; its outcome resumes `continuation` once.
    /// - Parameter deadline: seconds the whole attempt may take, headers and body: the
    ///   session's timeout only notices silence, and a server trickling a byte a second
    ///   would hold the task for ever. Then the task fails as a retryable timeout.
    func start(_ task: URLSessionDataTask, url: URL, cap: Int, deadline: Int,
               continuation: CheckedContinuation<HTTPResponse, any Error>) {
        let id = task.taskIdentifier
        let due = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(deadline, 0)) &* 1_000_000_000
        transfers.withLock {
            $0[id] = Transfer(url: url, cap: cap, task: task, continuation: continuation, deadline: due,
                              deadlineSeconds: deadline)
        }
        task.resume()
    }

    /// Stops every transfer past its deadline that is not already being stopped.
    private func expireOverdue() {
        let now = DispatchTime.now().uptimeNanoseconds
        let overdue = transfers.withLock { transfers in
            transfers.values.filter { $0.deadline <= now && $0.failure == nil }
        }
        for transfer in overdue {
            stop(transfer.task, because: .transport(url: transfer.url, code: URLError.timedOut.rawValue,
                                                    message: "no complete answer within \(transfer.deadlineSeconds) s"))
        }
    }

    /// Records why the task is being stopped (the first reason wins), then cancels it.
    private func stop(_ task: URLSessionTask, because failure: HTTPError) {
        transfers.withLock { transfers in
            if transfers[task.taskIdentifier]?.failure == nil { transfers[task.taskIdentifier]?.failure = failure }
        }
        // Never on the delegate queue: cancel() waits for libcurl's work queue, which may
        // itself be waiting for the delegate queue (InlineDelegateQueue).
        task.cancelLater()
    }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        let (url, cap) = transfers.withLock { transfers -> (URL?, Int) in
            transfers[dataTask.taskIdentifier]?.response = http
            transfers[dataTask.taskIdentifier]?.body = Data()
            return (transfers[dataTask.taskIdentifier]?.url, transfers[dataTask.taskIdentifier]?.cap ?? 0)
        }
        // With gzip, expectedContentLength is the compressed size: only an
        // uncompressed length says for sure the decoded body is over the cap.
        let encoding = http?.value(forHTTPHeaderField: "Content-Encoding")?.lowercased() ?? "identity"
        if let url, encoding == "identity", response.expectedContentLength > Int64(cap) {
            // FoundationNetworking ignores the `.cancel` disposition: stop the task for real.
            stop(dataTask, because: .bodyTooLarge(url: url, limit: cap))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let overflow = transfers.withLock { transfers -> (URL, Int)? in
            guard let url = transfers[id]?.url, let cap = transfers[id]?.cap, let received = transfers[id]?.body.count,
                  transfers[id]?.failure == nil else { return nil }
            guard received + data.count <= cap else { return (url, cap) }
            transfers[id]?.body.append(data)  // in place: no copy of the body so far
            return nil
        }
        if let (url, cap) = overflow {
            stop(dataTask, because: .bodyTooLarge(url: url, limit: cap))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        let target = Self.redirectTarget(of: response, proposed: request)
        let hop = transfers.withLock { transfers -> (origin: URL, count: Int)? in
            transfers[task.taskIdentifier]?.redirects += 1
            return transfers[task.taskIdentifier].map { ($0.url, $0.redirects) }
        }
        let verdict: HTTPError?
        if let (origin, count) = hop {
            verdict = vet(target, from: origin, hops: count)
        } else {
            verdict = nil  // already stopped: the cancellation is under way
        }
        if let verdict {
            completionHandler(nil)
            stop(task, because: verdict)
        } else {
            var corrected = request
            corrected.url = target
            completionHandler(corrected)
        }
    }

    /// Why a redirect must not be followed, or nil to follow it. Called outside the
    /// lock, because `allowRedirect` is the caller's code.
    private func vet(_ target: URL?, from origin: URL, hops: Int) -> HTTPError? {
        guard let target else {
            return .transport(url: origin, code: URLError.badURL.rawValue, message: "redirect without a location")
        }
        if hops > Self.maxRedirects {
            return .transport(url: origin, code: URLError.httpTooManyRedirects.rawValue,
                              message: "more than \(Self.maxRedirects) redirects")
        }
        if Self.sameOrigin(target, origin) || allowRedirect(target) { return nil }
        return .redirectRefused(from: origin, to: target)
    }

    /// Where a redirect really points. FoundationNetworking resolves a relative
    /// `Location` through `URL.path`, which drops a trailing slash: PokeAPI's
    /// 301 from `/pokemon/25` to `/pokemon/25/` would come back to `/pokemon/25`.
    private static func redirectTarget(of response: HTTPURLResponse, proposed: URLRequest) -> URL? {
        guard let location = response.value(forHTTPHeaderField: "Location"),
              let base = response.url ?? proposed.url,
              let resolved = URL(string: location, relativeTo: base) else { return proposed.url }
        return resolved.absoluteURL
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        transfer.continuation.resume(with: Self.outcome(of: transfer, error: error))
    }

    private static func outcome(of transfer: Transfer, error: (any Error)?) -> Result<HTTPResponse, any Error> {
        if let failure = transfer.failure {
            return .failure(failure)
        }
        if let error {
            guard let urlError = error as? URLError else {
                return .failure(HTTPError.transport(url: transfer.url, code: URLError.unknown.rawValue,
                                                    message: String(describing: error)))
            }
            // Only a cancelled Swift task cancels a task without recording a failure.
            if urlError.code == .cancelled { return .failure(CancellationError()) }
            return .failure(HTTPError.transport(urlError, url: transfer.url))
        }
        guard let response = transfer.response else {
            return .failure(HTTPError.transport(url: transfer.url, code: URLError.badServerResponse.rawValue,
                                                message: "no HTTP response"))
        }
        return .success(HTTPResponse(response, body: transfer.body, requestedURL: transfer.url))
    }

    /// Same scheme, host and port: PokeAPI's 301 to the slashed path stays within it.
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        RedirectRule.sameOrigin(a, b)
    }
}
