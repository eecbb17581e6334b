import Foundation
import PokedexReader
import PokedexUpdater
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a GET failed. Every case names the URL and prints as one line, e.g.
/// `GET http://127.0.0.1:8080/api/v2/pokemon/25/: HTTP 503 after 5 attempts`.
///
/// A 304 or a 404 is a normal result (an ``HTTPResponse``), not an `HTTPError`.
package enum HTTPError: PokeSyncError, Equatable {
    /// The exchange itself failed: a timeout, a reset connection (-1005), a body
    /// shorter than its Content-Length (-1) ... `code` is the `URLError` code, kept for
    /// deciding what is retried, never printed (libcurl has other words, the line says what happened).
    /// `attempts` is how many attempts were made before giving up.
    case transport(url: URL, code: Int, message: String, attempts: Int = 1)
    /// A final status that is not a usable result: a 5xx or 429 still failing after
    /// every retry, or a 4xx that a caller's `validate` closure decided not to accept.
    case status(url: URL, status: Int, attempts: Int = 1)
    /// The body grew past the configured cap; the transfer was stopped there.
    case bodyTooLarge(url: URL, limit: Int)
    /// A redirect pointed somewhere the configuration does not allow (another scheme,
    /// such as `file:`, or another host or port off the allow-list); the new location was
    /// not contacted.
    case redirectRefused(from: URL, to: URL)
    /// The proxy (`https_proxy`, `http_proxy`) refused the request itself: 407 (it wants
    /// credentials) or 403 (it does not allow this host). Never retried: the same proxy
    /// answers the same; `proxy` names it as ``ProxyEnvironment/Proxy/name`` does.
    case proxyRefused(url: URL, proxy: String, status: Int)
    /// The TLS handshake with the server failed: its certificate is not trusted, is for
    /// another name or out of date, or no protocol or cipher is shared. Never retried (the
    /// same certificate comes back), and fatal to a crawl: the line says what to do.
    case tls(url: URL, failure: TLSFailure)
    /// The body is not in the encoding its `Content-Encoding` announces (gzip over plain
    /// bytes): refused at once, never retried, since the same bytes come back. `encoding`
    /// is the announced one, nil when the transport does not say.
    case badEncoding(url: URL, encoding: String?)
    /// A response arrived but its body is unusable (short, or does not parse).
    /// Thrown by a `validate` closure to ask ``HTTPClient/fetch(_:headers:validate:)`` for a retry.
    case invalidBody(url: URL, reason: String)

    /// Whether trying the same request again may succeed: transport failures other
    /// than malformed URLs, redirect loops and an invalidated client; 5xx, 429 and invalid bodies.
    package var isRetryable: Bool {
        switch self {
        case .transport(_, let code, _, _):
            return !Self.permanentTransportCodes.contains(code)
        case .status(_, let status, _):
            return status == 429 || (500...599).contains(status)
        case .invalidBody:
            return true
        case .bodyTooLarge, .redirectRefused, .tls, .proxyRefused, .badEncoding:
            return false
        }
    }

    /// The URL this error is about (for a refused redirect, the URL that was requested).
    package var url: URL {
        switch self {
        case .transport(let url, _, _, _), .status(let url, _, _), .bodyTooLarge(let url, _),
             .invalidBody(let url, _), .tls(let url, _), .proxyRefused(let url, _, _), .badEncoding(let url, _):
            return url
        case .redirectRefused(let from, _):
            return from
        }
    }

    package var code: ErrorCode { .httpFailed }

    package var description: String {
        switch self {
        case .transport(let url, _, let message, let attempts):
            return "GET \(url.absoluteString): \(message)\(Self.suffix(attempts))"
        case .status(let url, let status, let attempts):
            return "GET \(url.absoluteString): HTTP \(status)\(Self.suffix(attempts))"
        case .bodyTooLarge(let url, let limit):
            return "GET \(url.absoluteString): body larger than \(limit) bytes, refused"
        case .redirectRefused(let from, let to):
            return "GET \(from.absoluteString): \(RedirectPolicy.refusal(from: from, to: to))"
        case .invalidBody(let url, let reason):
            return "GET \(url.absoluteString): invalid body: \(reason)"
        case .badEncoding(let url, let encoding):
            return "GET \(url.absoluteString): \(Self.notAsAnnounced(encoding)), refused, not retried"
        case .tls(let url, let failure):
            return "GET \(url.absoluteString): \(failure)"
        case .proxyRefused(let url, let proxy, let status):
            let what = status == 407 ? "407 Proxy Authentication Required" : status == 403 ? "403 Forbidden" : "\(status)"
            let remedy = status == 407 ? "give the proxy's user and password in the variable (http://user:password@host:port)"
                : "the proxy does not let this host through: ask its operator, or name the host in no_proxy"
            return "GET \(url.absoluteString): the proxy \(proxy) refused the request: HTTP \(what); not retried; \(remedy)"
        }
    }

    /// The same error, recording how many attempts were made in total.
    func afterAttempts(_ attempts: Int) -> HTTPError {
        switch self {
        case .transport(let url, let code, let message, _):
            return .transport(url: url, code: code, message: message, attempts: attempts)
        case .status(let url, let status, _):
            return .status(url: url, status: status, attempts: attempts)
        default:
            return self
        }
    }

    /// "not gzip as announced" (`Content-Encoding: gzip` over bytes that are not gzip).
    static func notAsAnnounced(_ encoding: String?) -> String {
        guard let encoding = encoding?.trimmingCharacters(in: .whitespaces), !encoding.isEmpty else {
            return "body not in the encoding its Content-Encoding announces"
        }
        return "body not \(encoding.prefix(40)) as announced (Content-Encoding: \(encoding.prefix(40)))"
    }

    /// The line for a libcurl failure without a code of its own, in libcurl's words: a body
    /// cut short (`transfer closed with 12 bytes remaining to read`) says so; anything else
    /// is named as libcurl names it.
    static func unknownTransferMessage(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "transfer failed (truncated body?)" }
        let lowered = text.lowercased()
        let truncation = ["transfer closed with", "partial file", "end of response"]
        if truncation.contains(where: { lowered.contains($0) }) { return "truncated body (\(text))" }
        return "transfer failed (\(text))"
    }

    private static let permanentTransportCodes: Set<Int> = [
        URLError.badURL.rawValue, URLError.unsupportedURL.rawValue,
        URLError.httpTooManyRedirects.rawValue, URLError.cancelled.rawValue,
    ]

    private static func suffix(_ attempts: Int) -> String {
        attempts > 1 ? " after \(attempts) attempts" : ""
    }
}
