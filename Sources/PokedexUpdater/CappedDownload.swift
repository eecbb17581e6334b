import Foundation
import PokedexReader
import PokeArchive
import PokeLocking

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
/// The transport calls the receiver on its own thread while `run()` waits: what changes is
/// one `State`, reached only under its lock.
final class CappedDownload: DownloadReceiver, Sendable {
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
    private let state: Locked<State>

    /// What the download has received and decided so far.
    private struct State: Sendable {
        var handle: FileHandle?
        var body = Data()
        var count = 0
        var hasher = SHA256()
        var etag: String?
        var notModified = false
        /// Why the download stopped (the first reason wins).
        var failure: (any Error)?
        /// The URL of the hop under way, the same-origin target its 3xx named, and the
        /// redirects answered so far.
        var hop: URL
        var redirect: URL?
        var hops = 0
        /// The transfer under way, cancelled to stop it (the rate check, the task's cancellation).
        var transfer: Task<Void, any Error>?
        /// (seconds since start, bytes so far), one a tick: the rate window.
        var samples: [(Double, Int)] = []
    }

    init(url: URL, destination: URL?, cap: Int, settings: UpdaterSettings, ifNoneMatch: String? = nil,
         progress: @escaping @Sendable (Int) -> Void) {
        self.url = url
        self.destination = destination
        self.cap = cap
        self.settings = settings
        self.ifNoneMatch = ifNoneMatch
        self.progress = progress
        self.state = Locked(State(hop: url))
    }

    func run() async throws -> Fetched {
        try Task.checkCancellation()
        if let destination {
            guard FileManager.default.createFile(atPath: destination.path, contents: nil),
                  let handle = FileHandle(forWritingAtPath: destination.path) else {
                throw UpdateError.io(path: destination.path, reason: "cannot create the file")
            }
            state.withLock { $0.handle = handle }
        }
        defer { try? state.withLock { $0.handle }?.close() }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let start = Date()
        let tick = min(1, settings.timeout / 4)
        timer.schedule(deadline: .now() + tick, repeating: tick)
        timer.setEventHandler { [weak self] in self?.checkRate(elapsed: Date().timeIntervalSince(start)) }
        // Resumed at once: libdispatch traps when a source is released while suspended.
        timer.resume()
        defer { timer.cancel() }
        let transport = settings.transport ?? URLSessionDownloadTransport(configuration: settings.sessionConfiguration)
        // The size and hash are of the stored bytes: no transfer encoding may change them.
        var headers = ["Accept-Encoding": "identity"]
        if let ifNoneMatch { headers["If-None-Match"] = ifNoneMatch }
        var next: URL? = url
        while let target = next {
            next = nil
            state.withLock { state in
                state.hop = target
                state.redirect = nil
            }
            let transfer = Task { [settings, headers] in
                try await transport.get(target, headers: headers, timeout: settings.timeout, receiver: self)
            }
            let result = await withTaskCancellationHandler {
                let stopped = state.withLock { state -> Bool in
                    state.transfer = transfer
                    return state.failure != nil
                }
                if stopped { transfer.cancel() }
                return await transfer.result
            } onCancel: {
                stop(because: CancellationError())
            }
            let (failure, redirect) = state.withLock { state -> ((any Error)?, URL?) in
                state.transfer = nil
                return (state.failure, state.redirect)
            }
            // The first reason recorded wins over what the stopped transfer threw.
            if let failure { throw failure }
            try result.get()
            next = redirect
        }
        return state.withLock { state in
            if state.notModified {
                return Fetched(data: Data(), count: 0, digest: SHA256().finalize(), etag: nil, notModified: true)
            }
            let snapshot = state.hasher
            return Fetched(data: state.body, count: state.count, digest: snapshot.finalize(), etag: state.etag, notModified: false)
        }
    }

    /// Ends the download now with `error` (the first reason wins): the transfer is cancelled.
    private func stop(because error: any Error) {
        let transfer = state.withLock { state -> Task<Void, any Error>? in
            if state.failure == nil { state.failure = error }
            return state.transfer
        }
        transfer?.cancel()
    }

    /// Ends the attempt when it moved less than the minimum rate over the last `timeout` seconds.
    private func checkRate(elapsed: Double) {
        let timeout = settings.timeout
        let slow: Bool = state.withLock { state in
            state.samples.append((elapsed, state.count))
            guard elapsed >= timeout,
                  let old = state.samples.last(where: { $0.0 <= elapsed - timeout }) ?? state.samples.first else { return false }
            state.samples.removeAll { $0.0 < elapsed - timeout - 1 }
            let window = max(elapsed - old.0, timeout)
            return Double(state.count - old.1) < Double(UpdaterSettings.minimumBytesPerSecond) * window
        }
        if slow {
            stop(because: UpdateError.unreachable(source: url.absoluteString, reason: "timed out: less than "
                + "\(UpdaterSettings.minimumBytesPerSecond / 1000) kB/s over \(Int(timeout)) s"))
        }
    }

    /// Records `reason` as why the download stopped, unless one is recorded already.
    private func refuse(_ reason: String, in state: inout State) {
        if state.failure == nil { state.failure = UpdateError.unreachable(source: url.absoluteString, reason: reason) }
    }

    // MARK: DownloadReceiver

    func head(status: Int, headers: [String: String], url landed: URL) -> Bool {
        state.withLock { state in
            guard state.failure == nil else { return false }
            let sameServer = "only redirects within the same server are followed"
            if landed != state.hop, !Self.redirects.follows(landed, origin: url) {
                // FoundationNetworking follows a redirect to file: without asking the delegate,
                // then answers 404 for it: name the redirect, not the status.
                refuse(RedirectPolicy.refusal(from: state.hop, to: landed, extra: sameServer), in: &state)
                return false
            }
            if status == 304, ifNoneMatch != nil {
                state.notModified = true
                return false
            }
            if RedirectPolicy.statuses.contains(status) {
                guard let location = headers["location"] else {
                    refuse("HTTP status \(status) without a usable Location", in: &state)
                    return false
                }
                state.hops += 1
                switch Self.redirects.decide(location: location, from: state.hop, origin: url, hops: state.hops) {
                case .follow(let target): state.redirect = target
                case .unreadable: refuse("HTTP status \(status) without a usable Location", in: &state)
                case .tooMany: refuse(RedirectPolicy.tooManyReason, in: &state)
                case .refused(let target): refuse(RedirectPolicy.refusal(from: state.hop, to: target, extra: sameServer), in: &state)
                }
                return false
            }
            if status != 200 {
                refuse("HTTP status \(status)", in: &state)
                return false
            }
            let encoding = (headers["content-encoding"] ?? "identity").trimmingCharacters(in: .whitespaces)
            if !encoding.isEmpty, encoding.lowercased() != "identity" {
                // Decoded bytes are not the stored bytes, and a small body may decode to gigabytes.
                refuse("sent Content-Encoding \(encoding.prefix(40)); only identity is accepted", in: &state)
                return false
            }
            state.etag = headers["etag"]
            return true
        }
    }

    func body(_ piece: UnsafeRawBufferPointer) -> Bool {
        let received: Int? = state.withLock { state in
            guard state.failure == nil else { return nil }
            let room = cap - state.count
            let accepted = UnsafeRawBufferPointer(rebasing: piece.prefix(room))
            state.count += accepted.count
            state.hasher.update(accepted)
            if let handle = state.handle {
                do { try handle.write(contentsOf: Data(accepted)) } catch {
                    state.failure = UpdateError.io(path: destination?.path ?? "", reason: error.localizedDescription)
                }
            } else {
                state.body.append(contentsOf: accepted)
            }
            if state.count >= cap, state.failure == nil {
                // One byte past the index's size proves the file is not the one it names.
                state.failure = UpdateError.badBundle(path: url.lastPathComponent, reason: "is larger than the index's \(cap - 1) bytes")
            }
            return state.failure == nil ? state.count : nil
        }
        guard let received else { return false }
        progress(received)
        return true
    }
}
