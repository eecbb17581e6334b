import Foundation
import PokeArchive
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP GET whose body is counted and hashed as it arrives and cancelled past a cap,
/// so that a hostile or broken server cannot fill the disk or memory (a cap checked after
/// `data(for:)` returns bounds nothing).
///
/// `@unchecked Sendable`: URLSession calls the delegate on its own queue while `run()`
/// waits; every mutable field is guarded by `lock` (NSLock: PokedexReader cannot use
/// Synchronization on iOS 17).
final class CappedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let url: URL
    private let destination: URL?
    private let cap: Int
    private let progress: @Sendable (Int) -> Void
    private let lock = NSLock()
    private var handle: FileHandle?
    private var body = Data()
    private var count = 0
    private var hasher = SHA256()
    private var failure: UpdateError?
    private var continuation: CheckedContinuation<(data: Data, count: Int, digest: SHA256Digest), any Error>?

    init(url: URL, destination: URL?, cap: Int, progress: @escaping @Sendable (Int) -> Void) {
        self.url = url
        self.destination = destination
        self.cap = cap
        self.progress = progress
    }

    func run() async throws -> (data: Data, count: Int, digest: SHA256Digest) {
        if let destination {
            guard FileManager.default.createFile(atPath: destination.path, contents: nil),
                  let handle = FileHandle(forWritingAtPath: destination.path) else {
                throw UpdateError.io(path: destination.path, reason: "cannot create the file")
            }
            self.handle = handle
        }
        defer { try? handle?.close() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 30
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            lock.withLock { self.continuation = continuation }
            var request = URLRequest(url: url)
            // The size and hash are of the stored bytes: no transfer encoding may change them.
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            session.dataTask(with: request).resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse, http.statusCode != 200 {
            lock.withLock { failure = .unreachable(source: url.absoluteString, reason: "HTTP status \(http.statusCode)") }
            completionHandler(.cancel)
            return
        }
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
                    failure = .io(path: destination?.path ?? "", reason: error.localizedDescription)
                }
            } else {
                body.append(accepted)
            }
            if count >= cap, failure == nil {
                // One byte past the index's size proves the file is not the one it names.
                failure = .badBundle(path: url.lastPathComponent, reason: "is larger than the index's \(cap - 1) bytes")
            }
            return count
        }
        guard let received else { dataTask.cancel(); return }
        progress(received)
        if lock.withLock({ failure != nil }) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result): (CheckedContinuation<(data: Data, count: Int, digest: SHA256Digest), any Error>?,
                                     Result<(data: Data, count: Int, digest: SHA256Digest), any Error>) = lock.withLock {
            let waiting = self.continuation
            self.continuation = nil
            if let failure { return (waiting, .failure(failure)) }
            if let error {
                return (waiting, .failure(UpdateError.unreachable(source: url.absoluteString, reason: error.localizedDescription)))
            }
            let snapshot = hasher
            return (waiting, .success((body, count, snapshot.finalize())))
        }
        continuation?.resume(with: result)
    }
}
