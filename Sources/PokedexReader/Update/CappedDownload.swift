import Foundation
import PokeArchive
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP GET whose body is counted and hashed as it arrives and cancelled past a cap,
/// so that a hostile or broken server cannot fill the disk or memory (a cap checked after
/// `data(for:)` returns bounds nothing). It also refuses any `Content-Encoding` but
/// identity (a 1 MB gzip body may decode to gigabytes before any cap sees it), follows
/// only same-origin redirects, ends an attempt that moves less than 1 kB/s averaged over
/// the settings' timeout, and stops at once when its task is cancelled.
///
/// `@unchecked Sendable`: URLSession calls the delegate on its own queue while `run()`
/// waits; every mutable field is guarded by `lock` (NSLock: PokedexReader cannot use
/// Synchronization on iOS 17).
final class CappedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What a GET gave: the body (when not written to a file), its size and hash, the
    /// response's ETag, and whether the server said 304 Not Modified.
    struct Fetched: Sendable {
        var data: Data
        var count: Int
        var digest: SHA256Digest
        var etag: String?
        var notModified: Bool
    }

    private let url: URL
    private let destination: URL?
    private let cap: Int
    private let settings: UpdaterSettings
    private let ifNoneMatch: String?
    private let progress: @Sendable (Int) -> Void
    private let lock = NSLock()
    private var handle: FileHandle?
    private var body = Data()
    private var count = 0
    private var hasher = SHA256()
    private var etag: String?
    private var notModified = false
    private var failure: (any Error)?
    private var task: URLSessionDataTask?
    /// Whether the task's cancel was asked for: once is enough (see ``cancelLater(_:)``).
    private var cancelRequested = false
    private var continuation: CheckedContinuation<Fetched, any Error>?
    /// (seconds since start, bytes so far), one a tick: the rate window.
    private var samples: [(Double, Int)] = []

    init(url: URL, destination: URL?, cap: Int, settings: UpdaterSettings, ifNoneMatch: String? = nil,
         progress: @escaping @Sendable (Int) -> Void) {
        self.url = url
        self.destination = destination
        self.cap = cap
        self.settings = settings
        self.ifNoneMatch = ifNoneMatch
        self.progress = progress
    }

    func run() async throws -> Fetched {
        try Task.checkCancellation()
        if let destination {
            guard FileManager.default.createFile(atPath: destination.path, contents: nil),
                  let handle = FileHandle(forWritingAtPath: destination.path) else {
                throw UpdateError.io(path: destination.path, reason: "cannot create the file")
            }
            self.handle = handle
        }
        defer { try? handle?.close() }
        let configuration = (settings.configuration?.copy() as? URLSessionConfiguration) ?? URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = settings.timeout
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
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let start = Date()
        let tick = min(1, settings.timeout / 4)
        timer.schedule(deadline: .now() + tick, repeating: tick)
        timer.setEventHandler { [weak self] in self?.checkRate(elapsed: Date().timeIntervalSince(start)) }
        // Resumed at once: libdispatch traps when a source is released while suspended.
        timer.resume()
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                var request = URLRequest(url: url)
                // The size and hash are of the stored bytes: no transfer encoding may change them.
                request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
                if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
                let task = session.dataTask(with: request)
                let cancelled = lock.withLock { () -> Bool in
                    self.continuation = continuation
                    self.task = task
                    return failure is CancellationError
                }
                if cancelled { finish(with: CancellationError()) } else { task.resume() }
            }
        } onCancel: {
            finish(with: CancellationError())
        }
    }

    /// Ends the download now with `error` (the first reason wins) and resumes the waiter.
    private func finish(with error: any Error) {
        let (waiting, task): (CheckedContinuation<Fetched, any Error>?, URLSessionDataTask?) = lock.withLock {
            if failure == nil { failure = error }
            let waiting = continuation
            continuation = nil
            return (waiting, self.task)
        }
        if let task { cancelLater(task) }
        waiting?.resume(throwing: lock.withLock { failure! })
    }

    /// Ends the attempt when it moved less than the minimum rate over the last `timeout` seconds.
    private func checkRate(elapsed: Double) {
        let timeout = settings.timeout
        let slow: Bool = lock.withLock {
            samples.append((elapsed, count))
            guard elapsed >= timeout, let old = samples.last(where: { $0.0 <= elapsed - timeout }) ?? samples.first else { return false }
            samples.removeAll { $0.0 < elapsed - timeout - 1 }
            let window = max(elapsed - old.0, timeout)
            return Double(count - old.1) < Double(UpdaterSettings.minimumBytesPerSecond) * window
        }
        if slow {
            finish(with: UpdateError.unreachable(source: url.absoluteString, reason: "timed out: less than "
                + "\(UpdaterSettings.minimumBytesPerSecond / 1000) kB/s over \(Int(timeout)) s"))
        }
    }

    /// Cancels `task` from another thread: a delegate callback runs inside the session's
    /// work (``InlineDelegateQueue``), which `cancel()` waits for. Only once: a refused
    /// gzip body still arrives as a callback per decoded chunk (a million for 16 GiB), and
    /// a cancel queued for each, all waiting on that busy work queue, took 530 MB.
    private func cancelLater(_ task: URLSessionTask) {
        let first = lock.withLock { () -> Bool in
            defer { cancelRequested = true }
            return !cancelRequested
        }
        if first { task.cancelLater() }
    }

    private func sameOrigin(_ other: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme == "https" ? 443 : url.scheme == "http" ? 80 : nil) }
        return other.scheme?.lowercased() == url.scheme?.lowercased() && other.host?.lowercased() == url.host?.lowercased()
            && port(other) == port(url)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // The Location header itself, not the request FoundationNetworking made of it (it
        // turns `file:///x` into a path on the same server).
        let location = response.value(forHTTPHeaderField: "Location").flatMap { URL(string: $0, relativeTo: response.url ?? url) }
        guard let target = location ?? request.url, sameOrigin(target) else {
            let target = location?.absoluteString ?? request.url?.absoluteString ?? "nowhere"
            let what = (location ?? request.url)?.isFileURL == true ? "a file: URL" : "another host or port"
            lock.withLock { if failure == nil { failure = UpdateError.unreachable(source: url.absoluteString,
                reason: "redirected to \(target), \(what); only redirects within the same server are followed") } }
            completionHandler(nil)
            cancelLater(task)
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let http = response as? HTTPURLResponse else { completionHandler(.allow); return }
        var problem: UpdateError?
        if http.statusCode == 304, ifNoneMatch != nil {
            lock.withLock { notModified = true }
            completionHandler(.cancel)
            cancelLater(dataTask)
            return
        }
        let encoding = (http.value(forHTTPHeaderField: "Content-Encoding") ?? "identity").trimmingCharacters(in: .whitespaces)
        if let landed = response.url, !sameOrigin(landed) {
            // FoundationNetworking follows a redirect to file: without asking the delegate,
            // then answers 404 for it: name the redirect, not the status.
            let what = landed.isFileURL ? "a file: URL" : "another host or port"
            problem = .unreachable(source: url.absoluteString, reason: "redirected to \(landed.absoluteString), \(what); "
                                   + "only redirects within the same server are followed")
        } else if (300..<400).contains(http.statusCode) {
            let location = http.value(forHTTPHeaderField: "Location") ?? "nowhere"
            let what = location.lowercased().hasPrefix("file:") ? "a file: URL" : "a place not followed"
            problem = .unreachable(source: url.absoluteString, reason: "redirected to \(location), \(what)")
        } else if http.statusCode != 200 {
            problem = .unreachable(source: url.absoluteString, reason: "HTTP status \(http.statusCode)")
        } else if !encoding.isEmpty, encoding.lowercased() != "identity" {
            // Decoded bytes are not the stored bytes, and a small body may decode to gigabytes.
            problem = .unreachable(source: url.absoluteString,
                                   reason: "sent Content-Encoding \(encoding.prefix(40)); only identity is accepted")
        }
        if let problem {
            completionHandler(.cancel)
            // Answer now: libcurl may go on decoding (and dropping) a refused body for a while.
            finish(with: problem)
            // FoundationNetworking ignores the `.cancel` disposition (it lets libcurl go on): without a
            // real cancel a gzip body goes on decoding into memory. Off this queue, which the
            // cancel may wait for.
            cancelLater(dataTask)
            return
        }
        lock.withLock { etag = http.value(forHTTPHeaderField: "ETag") }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let received: Int? = lock.withLock {
            guard failure == nil else { return nil }
            let room = cap - count
            let accepted = data.count > room ? data.prefix(room) : data
            count += accepted.count
            hasher.update(accepted)
            if let handle {
                do { try handle.write(contentsOf: accepted) } catch {
                    failure = UpdateError.io(path: destination?.path ?? "", reason: error.localizedDescription)
                }
            } else {
                body.append(accepted)
            }
            if count >= cap, failure == nil {
                // One byte past the index's size proves the file is not the one it names.
                failure = UpdateError.badBundle(path: url.lastPathComponent, reason: "is larger than the index's \(cap - 1) bytes")
            }
            return count
        }
        guard let received else { cancelLater(dataTask); return }
        progress(received)
        if lock.withLock({ failure != nil }) { cancelLater(dataTask) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result): (CheckedContinuation<Fetched, any Error>?, Result<Fetched, any Error>) = lock.withLock {
            let waiting = self.continuation
            self.continuation = nil
            if let failure { return (waiting, .failure(failure)) }
            if notModified {
                return (waiting, .success(Fetched(data: Data(), count: 0, digest: SHA256().finalize(), etag: nil, notModified: true)))
            }
            if let error {
                let timedOut = (error as? URLError)?.code == .timedOut
                // A certificate this device does not trust: say so, and how to trust one.
                let reason = timedOut ? "timed out: nothing received for \(Int(settings.timeout)) s"
                    : TLSFailure(error, url: url)?.description ?? error.localizedDescription
                return (waiting, .failure(UpdateError.unreachable(source: url.absoluteString, reason: reason)))
            }
            let snapshot = hasher
            return (waiting, .success(Fetched(data: body, count: count, digest: snapshot.finalize(), etag: etag, notModified: false)))
        }
        continuation?.resume(with: result)
    }
}
