import CCurl
import Foundation

/// One thread that runs every transfer of one libcurl multi handle: the HTTP transport of
/// the command line (the crawler's ``HTTPClient`` and `install`'s downloads).
///
/// Why libcurl itself and not URLSession: FoundationNetworking's cancel is asynchronous and
/// does not stop the transfer (a refused endless body was read on to the server's end, a
/// refused gzip bomb kept inflating), and it traps when a cancel overtakes a completion.
/// Here every decision is made on this one thread: a body callback that refuses a piece
/// (a cap, a stop) ends the transfer inside that very call, and a cancellation is a
/// command this thread applies between two rounds of `curl_multi_perform` by removing the
/// handle, which closes its connection at once. A cancel and a completion are two commands
/// in one queue, never a race: whichever this thread sees first wins, and the other finds
/// nothing to do.
///
/// One multi handle holds the connection cache (keep-alive, TLS sessions, HTTP/2
/// multiplexing) for all its transfers, so requests reuse connections across the run.
///
/// The driver checks what every `curl_multi_*` call returns: when the multi handle fails
/// (out of memory, a broken handle), every transfer in flight and every later one fails
/// with ``UnavailableError/failed(_:)`` naming the call and libcurl's words, and the thread ends.
///
/// `@unchecked Sendable`: `commands`, `stopping`, `broken` and `exited` are read and written
/// under `lock`; `active` and the multi handle are touched by the driver thread only.
final class CurlDriver: @unchecked Sendable {
    private enum Command {
        case start(CurlTransfer)
        case cancel(CurlTransfer)
    }

    private let multi: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var commands: [Command] = []
    private var stopping = false
    /// Why the multi handle can run no transfer, once it failed.
    private var broken: UnavailableError?
    private var exited = false
    /// Driver thread only: the transfers added to the multi handle, by easy handle.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    /// libcurl's global state is set up once per process, before any handle is made.
    private static let globalSetUp: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// - Parameters:
    ///   - maxConnections: idle connections the cache keeps open between transfers
    ///     (`CURLMOPT_MAXCONNECTS`); libcurl's default closes them as soon as few transfers run.
    ///   - name: the thread's name, for debuggers.
    init(maxConnections: Int, name: String) {
        _ = Self.globalSetUp
        guard let multi = curl_multi_init() else {
            // Only out of memory: there is no handle to run anything on.
            fatalError("libcurl: curl_multi_init failed (out of memory)")
        }
        self.multi = multi
        // A cache of libcurl's default size only costs reconnections: not worth failing for.
        _ = pokesync_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, maxConnections))
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Runs `transfer` to its end and returns how it ended.
    /// - Throws: `CancellationError` when the awaiting task is cancelled (the transfer is
    ///   removed at once, its connection closed); ``UnavailableError/stopped`` when it is
    ///   submitted after ``stop()`` (it never starts, even while transfers submitted before
    ///   `stop()` still run); ``UnavailableError/failed(_:)`` when the multi handle failed.
    func perform(_ transfer: CurlTransfer) async throws -> CurlOutcome {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation  // handed to the driver thread by the lock below
                submit(.start(transfer))
            }
        } onCancel: {
            submit(.cancel(transfer))
        }
    }

    /// Lets the transfers submitted before it finish, then ends the thread. A transfer
    /// submitted after it fails at once with ``UnavailableError/stopped`` and is never sent.
    func stop() {
        // The wakeup under the lock, and only while the thread has not exited: once it has,
        // the multi handle is cleaned up and a wakeup on it would touch freed memory.
        lock.withLock {
            stopping = true
            if !exited { curl_multi_wakeup(multi) }
        }
    }

    /// Why a transfer could not run on this driver.
    enum UnavailableError: Error, CustomStringConvertible {
        /// It was submitted after ``CurlDriver/stop()``.
        case stopped
        /// The multi handle failed: the call and libcurl's words (`curl_multi_poll: out of memory`).
        case failed(String)

        var description: String {
            switch self {
            case .stopped: "the HTTP transport was already stopped"
            case .failed(let what): "libcurl failed (\(what))"
            }
        }
    }

    private func submit(_ command: Command) {
        // Woken under the lock, for the reason ``stop()`` gives. A start after stop() is
        // refused here, not queued: the thread would otherwise run it before it exits.
        // A cancel is always queued: it may be for a transfer still in flight.
        let refusal = lock.withLock { () -> UnavailableError? in
            if case .start = command {
                if let broken { return broken }
                if stopping || exited { return .stopped }
            } else if exited {
                return nil
            }
            commands.append(command)
            curl_multi_wakeup(multi)
            return nil
        }
        if let refusal, case .start(let transfer) = command {
            transfer.finish(.failure(refusal))
        }
    }

    /// The failure of a `curl_multi_*` call, or nil when it succeeded.
    private static func failure(of call: String, _ code: CURLMcode) -> UnavailableError? {
        guard code != CURLM_OK else { return nil }
        return .failed("\(call): " + (curl_multi_strerror(code).map { String(cString: $0) } ?? "code \(code.rawValue)"))
    }

    private func run() {
        var running: Int32 = 0
        while true {
            let (batch, stop) = lock.withLock { () -> ([Command], Bool) in
                defer { commands.removeAll(keepingCapacity: true) }
                return (commands, stopping)
            }
            for command in batch { apply(command) }
            if stop, active.isEmpty { break }
            if let failure = Self.failure(of: "curl_multi_perform", curl_multi_perform(multi, &running)) {
                failAll(failure)
                break
            }
            collectFinished()
            // Returns early on socket activity, on libcurl's own timers, or on a wakeup
            // (a new command); a second at most otherwise.
            if let failure = Self.failure(of: "curl_multi_poll", curl_multi_poll(multi, nil, 0, 1000, nil)) {
                failAll(failure)
                break
            }
        }
        let (late, reason) = lock.withLock { () -> ([Command], UnavailableError) in
            exited = true
            defer { commands.removeAll() }
            return (commands, broken ?? .stopped)
        }
        for case .start(let transfer) in late { transfer.finish(.failure(reason)) }
        curl_multi_cleanup(multi)
    }

    /// Fails every transfer in flight with `failure`, and every later one (the multi handle
    /// is not trusted again).
    private func failAll(_ failure: UnavailableError) {
        lock.withLock { broken = failure }
        for (handle, transfer) in active {
            curl_multi_remove_handle(multi, handle)
            transfer.finish(.failure(failure))
        }
        active.removeAll()
    }

    private func apply(_ command: Command) {
        switch command {
        case .start(let transfer):
            guard !transfer.cancelRequested else {
                transfer.finish(.failure(CancellationError()))  // cancelled before it was sent
                return
            }
            if let failure = Self.failure(of: "curl_multi_add_handle", curl_multi_add_handle(multi, transfer.handle)) {
                transfer.finish(.failure(failure))
                return
            }
            transfer.started = true
            active[transfer.handle] = transfer
        case .cancel(let transfer):
            if active.removeValue(forKey: transfer.handle) != nil {
                curl_multi_remove_handle(multi, transfer.handle)
                transfer.finish(.failure(CancellationError()))
            } else if !transfer.started {
                transfer.cancelRequested = true  // its start is still to come in this queue
            }
            // Otherwise it has already finished: nothing to cancel.
        }
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                  let transfer = active.removeValue(forKey: handle) else { continue }
            let code = pokesync_message_result(message)
            curl_multi_remove_handle(multi, handle)
            transfer.finish(.success(transfer.outcome(code: code)))
        }
    }
}
