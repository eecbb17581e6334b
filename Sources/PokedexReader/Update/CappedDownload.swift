import Foundation
import PokeArchive

/// One HTTP GET whose body is counted and hashed as it arrives and stopped past a cap,
/// so that a hostile or broken server cannot fill the disk or memory (a cap checked after
/// the body is in bounds nothing). It also refuses any `Content-Encoding` but identity (a
/// 1 MB gzip body may decode to gigabytes before any cap sees it), follows redirects by
/// ``RedirectPolicy/sameOriginOnly`` (the command line's rules and hop limit; any other is
/// named: `redirects to file:///etc/passwd: another scheme (file), not followed`), ends an attempt that moves less than 1 kB/s averaged
/// over the settings' timeout, and stops at once when its task is cancelled.
///
/// The bytes move through the settings' ``DownloadTransport`` (URLSession by default);
/// every decision is made here, as its ``DownloadReceiver``.
///
/// `@unchecked Sendable`: the transport calls the receiver on its own thread while `run()`
/// waits; every mutable field is guarded by `lock` (NSLock: PokedexReader cannot use
/// Synchronization on iOS 17).
final class CappedDownload: DownloadReceiver, @unchecked Sendable {
    /// What a GET gave: the body (when not written to a file), its size and hash, the
    /// response's ETag, and whether the server said 304 Not Modified.
    struct Fetched: Sendable {
        var data: Data
        var count: Int
        var digest: SHA256Digest
        var etag: String?
        var notModified: Bool
    }

    /// The updater's redirects: its own server only.
    private static let redirects = RedirectPolicy.sameOriginOnly

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
    /// The URL of the hop under way, the same-origin target its 3xx named, and the
    /// redirects answered so far.
    private var hop: URL
    private var redirect: URL?
    private var hops = 0
    /// The transfer under way, cancelled to stop it (the rate check, the task's cancellation).
    private var transfer: Task<Void, any Error>?
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
        self.hop = url
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
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let start = Date()
        let tick = min(1, settings.timeout / 4)
        timer.schedule(deadline: .now() + tick, repeating: tick)
        timer.setEventHandler { [weak self] in self?.checkRate(elapsed: Date().timeIntervalSince(start)) }
        // Resumed at once: libdispatch traps when a source is released while suspended.
        timer.resume()
        defer { timer.cancel() }
        let transport = settings.transport ?? URLSessionDownloadTransport(configuration: settings.configuration)
        // The size and hash are of the stored bytes: no transfer encoding may change them.
        var headers = ["Accept-Encoding": "identity"]
        if let ifNoneMatch { headers["If-None-Match"] = ifNoneMatch }
        var next: URL? = url
        while let target = next {
            next = nil
            lock.withLock { hop = target; self.redirect = nil }
            let transfer = Task { [settings, headers] in
                try await transport.get(target, headers: headers, timeout: settings.timeout, receiver: self)
            }
            let result = await withTaskCancellationHandler {
                let stopped = lock.withLock { () -> Bool in
                    self.transfer = transfer
                    return self.failure != nil
                }
                if stopped { transfer.cancel() }
                return await transfer.result
            } onCancel: {
                stop(because: CancellationError())
            }
            let (failure, redirect) = lock.withLock { () -> ((any Error)?, URL?) in
                self.transfer = nil
                return (self.failure, self.redirect)
            }
            // The first reason recorded wins over what the stopped transfer threw.
            if let failure { throw failure }
            try result.get()
            next = redirect
        }
        return lock.withLock {
            if notModified {
                return Fetched(data: Data(), count: 0, digest: SHA256().finalize(), etag: nil, notModified: true)
            }
            let snapshot = hasher
            return Fetched(data: body, count: count, digest: snapshot.finalize(), etag: etag, notModified: false)
        }
    }

    /// Ends the download now with `error` (the first reason wins): the transfer is cancelled.
    private func stop(because error: any Error) {
        let transfer = lock.withLock { () -> Task<Void, any Error>? in
            if failure == nil { failure = error }
            return self.transfer
        }
        transfer?.cancel()
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
            stop(because: UpdateError.unreachable(source: url.absoluteString, reason: "timed out: less than "
                + "\(UpdaterSettings.minimumBytesPerSecond / 1000) kB/s over \(Int(timeout)) s"))
        }
    }

    private func refuse(_ reason: String) {
        if failure == nil { failure = UpdateError.unreachable(source: url.absoluteString, reason: reason) }
    }

    // MARK: DownloadReceiver

    func head(status: Int, headers: [String: String], url landed: URL) -> Bool {
        lock.withLock {
            guard failure == nil else { return false }
            let sameServer = "only redirects within the same server are followed"
            if landed != hop, !Self.redirects.follows(landed, origin: url) {
                // FoundationNetworking follows a redirect to file: without asking the delegate,
                // then answers 404 for it: name the redirect, not the status.
                refuse(RedirectPolicy.refusal(from: hop, to: landed, extra: sameServer))
                return false
            }
            if status == 304, ifNoneMatch != nil {
                notModified = true
                return false
            }
            if RedirectPolicy.statuses.contains(status) {
                guard let location = headers["location"] else {
                    refuse("HTTP status \(status) without a usable Location")
                    return false
                }
                hops += 1
                switch Self.redirects.decide(location: location, from: hop, origin: url, hops: hops) {
                case .follow(let target): redirect = target
                case .unreadable: refuse("HTTP status \(status) without a usable Location")
                case .tooMany: refuse(RedirectPolicy.tooManyReason)
                case .refused(let target): refuse(RedirectPolicy.refusal(from: hop, to: target, extra: sameServer))
                }
                return false
            }
            if status != 200 {
                refuse("HTTP status \(status)")
                return false
            }
            let encoding = (headers["content-encoding"] ?? "identity").trimmingCharacters(in: .whitespaces)
            if !encoding.isEmpty, encoding.lowercased() != "identity" {
                // Decoded bytes are not the stored bytes, and a small body may decode to gigabytes.
                refuse("sent Content-Encoding \(encoding.prefix(40)); only identity is accepted")
                return false
            }
            etag = headers["etag"]
            return true
        }
    }

    func body(_ piece: UnsafeRawBufferPointer) -> Bool {
        let received: Int? = lock.withLock {
            guard failure == nil else { return nil }
            let room = cap - count
            let accepted = UnsafeRawBufferPointer(rebasing: piece.prefix(room))
            count += accepted.count
            hasher.update(accepted)
            if let handle {
                do { try handle.write(contentsOf: Data(accepted)) } catch {
                    failure = UpdateError.io(path: destination?.path ?? "", reason: error.localizedDescription)
                }
            } else {
                body.append(contentsOf: accepted)
            }
            if count >= cap, failure == nil {
                // One byte past the index's size proves the file is not the one it names.
                failure = UpdateError.badBundle(path: url.lastPathComponent, reason: "is larger than the index's \(cap - 1) bytes")
            }
            return failure == nil ? count : nil
        }
        guard let received else { return false }
        progress(received)
        return true
    }
}
