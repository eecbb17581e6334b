import Foundation
import PokeLocking

/// Lets one request meet an https origin (scheme, host and port) first, alone, so that a
/// certificate this machine does not trust is met once, not once per request in flight.
///
/// A crawl starts with up to `--concurrency` lists at once, and the sprite phase with as
/// many sprites, all to a host not contacted before: without the gate, an untrusted
/// certificate would be refused that many times in parallel before the first failure
/// stopped the run. With it, the first request to an origin is the only one sent until it
/// ends; the others wait (their timeout clock not yet started: the task is not made).
/// Then:
/// - a TLS failure (``HTTPError/tls(url:failure:)``): the waiting and every later request to
///   that origin fail with it without contacting it;
/// - anything else (a response of any status, a refused connection, a timeout, a
///   cancellation): everyone goes ahead, now and later, as without the gate. A host that
///   does not answer must not have its requests' timeouts served one after another.
///
/// Plain-http origins pass through untouched.
final class TLSGate: Sendable {
    private enum Origin {
        /// One request is out; these wait for it, by ticket.
        case probing(waiting: [Int: CheckedContinuation<Void, any Error>])
        /// The first request ended otherwise than in a TLS failure: no more waiting.
        case open
        /// The TLS handshake failed: every request fails with this.
        case refused(HTTPError)
    }

    /// By origin (`https://host:port`, lower case); an origin not in it is not contacted yet.
    private let origins = Locked<[String: Origin]>([:])
    private let tickets = Locked(0)

    /// How a request ended, for ``settle(_:as:)``.
    enum Outcome {
        /// The origin's own TLS handshake failed with this, or the proxy refused the tunnel to it.
        case tlsFailed(HTTPError)
        /// A response, or a failure that says nothing against the origin's certificate.
        case otherwise
    }

    /// Waits until a request to `url` may be sent.
    /// - Returns: true when this request goes first and must report with ``settle(_:as:)``.
    /// - Throws: the origin's ``HTTPError/tls(url:failure:)``, or `CancellationError`.
    func enter(_ url: URL) async throws -> Bool {
        guard let key = Self.key(url) else { return false }
        while true {
            enum Step { case go, first, wait }
            let step: Step = try origins.withLock { origins in
                switch origins[key] {
                case nil:
                    origins[key] = .probing(waiting: [:])
                    return .first
                case .open: return .go
                case .refused(let error): throw error
                case .probing: return .wait
                }
            }
            switch step {
            case .go: return false
            case .first: return true
            case .wait: try await waitTurn(key)
            }
        }
    }

    /// Reports how the first request to `url` ended, and wakes those waiting for it.
    func settle(_ url: URL, as outcome: Outcome) {
        guard let key = Self.key(url) else { return }
        let (waiting, failure): ([CheckedContinuation<Void, any Error>], HTTPError?) = origins.withLock { origins in
            guard case .probing(let waiting) = origins[key] else { return ([], nil) }
            switch outcome {
            case .tlsFailed(let error):
                origins[key] = .refused(error)
                return (Array(waiting.values), error)
            case .otherwise:
                origins[key] = .open
                return (Array(waiting.values), nil)
            }
        }
        for continuation in waiting {
            if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
        }
    }

    /// Sleeps until the origin's first request ends (then the caller looks again).
    private func waitTurn(_ key: String) async throws {
        let ticket = tickets.withLock { next -> Int in
            next += 1
            return next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now: Result<Void, any Error>? = origins.withLock { origins in
                    guard case .probing(var waiting) = origins[key] else { return .success(()) }  // ended meanwhile
                    if Task.isCancelled { return .failure(CancellationError()) }
                    waiting[ticket] = continuation
                    origins[key] = .probing(waiting: waiting)
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let continuation = origins.withLock { origins -> CheckedContinuation<Void, any Error>? in
                guard case .probing(var waiting) = origins[key], let continuation = waiting.removeValue(forKey: ticket) else {
                    return nil
                }
                origins[key] = .probing(waiting: waiting)
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// `https://host:port` in lower case, or nil for a URL that is not https.
    private static func key(_ url: URL) -> String? {
        guard url.scheme?.lowercased() == "https" else { return nil }
        return "https://\(url.host?.lowercased() ?? ""):\(url.port ?? 443)"
    }
}
