import CCurl
import Foundation
import PokedexReader
import PokedexUpdater
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPClient``'s exchanges: libcurl through one ``CurlDriver``, redirects followed here
/// by the configuration's ``RedirectPolicy`` (the `Location` resolved by us, each target
/// vetted before it is contacted), gzip decoded by libcurl and the decoded bytes counted against the cap as
/// they arrive, so a body past it (announced or not, endless, a gzip bomb) stops being
/// read within the callback that crossed it.
final class CurlHTTPTransport: Sendable {
    private let configuration: HTTPClientConfiguration
    private let driver: CurlDriver
    private let proxies: ProxyEnvironment

    init(configuration: HTTPClientConfiguration, proxies: ProxyEnvironment = .current) {
        self.configuration = configuration
        self.proxies = proxies
        // Keep-alive connections stay open for the run: room for the cap on a few hosts
        // (the API, a sprite host, a cry host).
        driver = CurlDriver(maxConnections: 4 * configuration.maxConnectionsPerHost, name: "pokesync.http")
    }

    /// Lets exchanges in flight finish; later ones fail (``CurlDriver/stop()``).
    func invalidate() {
        driver.stop()
    }

    /// One GET of `url`, following the redirects the configuration's policy allows, its
    /// (decoded) body stopped past `cap` bytes.
    /// - Throws: ``HTTPError`` for a failed exchange, `CancellationError` when the awaiting task is cancelled.
    func exchange(_ url: URL, headers: [String: String], cap: Int) async throws -> HTTPResponse {
        var headers = headers
        if !headers.keys.contains(where: { $0.lowercased() == "accept" }) { headers["Accept"] = "application/json" }
        let deadline = configuration.attemptDeadline
        let due = ContinuousClock.now + .seconds(deadline)
        var current = url
        var hops = 0
        while true {
            let left = due - ContinuousClock.now
            let leftMilliseconds = max(1, Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            let body = BodyCollector(url: url, cap: cap)
            let proxy = proxies.proxy(for: current)
            let request = CurlTransfer.Request(url: current, headers: headers, userAgent: configuration.userAgent,
                                               timeout: configuration.timeout, deadlineMilliseconds: leftMilliseconds,
                                               decodeContent: true, proxy: proxy)
            let outcome: CurlOutcome
            do {
                outcome = try await driver.perform(CurlTransfer(request, sink: body))
            } catch let unavailable as CurlDriver.UnavailableError {
                // Not retried: the driver takes no more transfers.
                let message = if case .stopped = unavailable { "HTTP client already invalidated" } else { unavailable.description }
                throw HTTPError.transport(url: url, code: URLError.cancelled.rawValue, message: message)
            }
            if let failure = outcome.failure(requested: url, hop: current, proxy: proxy, deadline: deadline) { throw failure }
            // Plain http through a proxy is no tunnel: its 407 comes as the response itself.
            if let proxy, outcome.status == 407, current.scheme?.lowercased() == "http" {
                throw HTTPError.proxyRefused(url: url, proxy: proxy.name, status: 407)
            }
            guard RedirectPolicy.statuses.contains(outcome.status), let location = outcome.headers["location"] else {
                return HTTPResponse(url: current, status: outcome.status, headers: outcome.headers, body: body.data)
            }
            hops += 1
            let target: URL
            switch configuration.redirects.decide(location: location, from: current, origin: url, hops: hops) {
            case .follow(let next): target = next
            case .unreadable(let location):
                throw HTTPError.transport(url: url, code: URLError.badURL.rawValue,
                                          message: "redirect to an unreadable location \(location)")
            case .tooMany:
                throw HTTPError.transport(url: url, code: URLError.httpTooManyRedirects.rawValue,
                                          message: RedirectPolicy.tooManyReason)
            case .refused(let refused): throw HTTPError.redirectRefused(from: url, to: refused)
            }
            current = target
        }
    }
}

/// A body kept in memory up to a cap: the transfer ends in the callback that would cross it.
private final class BodyCollector: CurlSink {
    private let url: URL
    private let cap: Int
    private(set) var data = Data()

    init(url: URL, cap: Int) {
        self.url = url
        self.cap = cap
    }

    func head(status: Int, headers: [String: String]) -> (any Error)? {
        // With gzip, Content-Length is the compressed size: only an uncompressed length
        // says for sure the decoded body is over the cap.
        let encoding = headers["content-encoding"]?.lowercased() ?? "identity"
        guard encoding == "identity", let length = headers["content-length"].flatMap(Int.init), length >= 0 else { return nil }
        if length > cap { return HTTPError.bodyTooLarge(url: url, limit: cap) }
        data.reserveCapacity(length)
        return nil
    }

    func body(_ piece: UnsafeRawBufferPointer) -> (any Error)? {
        guard let base = piece.baseAddress, !piece.isEmpty else { return nil }
        guard data.count + piece.count <= cap else { return HTTPError.bodyTooLarge(url: url, limit: cap) }
        data.append(base.assumingMemoryBound(to: UInt8.self), count: piece.count)
        return nil
    }
}

extension CurlOutcome {
    /// The ``HTTPError`` (or other error) this outcome stands for, or nil for a response.
    /// - Parameters:
    ///   - url: the URL asked for, which errors name.
    ///   - hop: the URL this transfer fetched (a redirect's target names its own host).
    ///   - proxy: the proxy it went through, named when the failure is the proxy's.
    ///   - deadline: the attempt's deadline in seconds, for the message.
    func failure(requested url: URL, hop: URL, proxy: ProxyEnvironment.Proxy?, deadline: Int) -> (any Error)? {
        if stopReason is CurlTransfer.SilenceError {
            return HTTPError.transport(url: url, code: URLError.timedOut.rawValue, message: "timed out")
        }
        if let stopReason { return stopReason }
        if code == CURLE_OK { return nil }
        if let proxy {
            if connectStatus == 407 || connectStatus == 403 {
                return HTTPError.proxyRefused(url: url, proxy: proxy.name, status: connectStatus)
            }
            if connectStatus >= 300 {
                return HTTPError.transport(url: url, code: URLError.cannotConnectToHost.rawValue,
                                           message: "the proxy \(proxy.name) answered HTTP \(connectStatus) to CONNECT \(TLSFailure.hostAndPort(hop))")
            }
            if code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_PROXY {
                return HTTPError.transport(url: url, code: URLError.cannotConnectToHost.rawValue,
                                           message: "cannot connect to the proxy \(proxy.name) (\(message))")
            }
        }
        if Self.tlsCodes.contains(code.rawValue), let failure = TLSFailure(libcurlMessage: message, url: hop) {
            return HTTPError.tls(url: url, failure: failure)
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            let overall = message.hasPrefix("Operation timed out after")
            return HTTPError.transport(url: url, code: URLError.timedOut.rawValue,
                                       message: overall ? "no complete answer within \(deadline) s" : "timed out")
        case CURLE_COULDNT_CONNECT:
            return HTTPError.transport(url: url, code: URLError.cannotConnectToHost.rawValue, message: "cannot connect to host")
        case CURLE_COULDNT_RESOLVE_HOST:
            return HTTPError.transport(url: url, code: URLError.cannotFindHost.rawValue, message: "cannot find host")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            return HTTPError.transport(url: url, code: URLError.networkConnectionLost.rawValue, message: "connection lost")
        case CURLE_BAD_CONTENT_ENCODING:
            // gzip announced over bytes that are not gzip: the same bytes come back on a retry.
            return HTTPError.badEncoding(url: url, encoding: headers["content-encoding"])
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return HTTPError.transport(url: url, code: URLError.unsupportedURL.rawValue, message: "unsupported URL (\(message))")
        default:
            return HTTPError.transport(url: url, code: URLError.unknown.rawValue,
                                       message: HTTPError.unknownTransferMessage(message))
        }
    }

    /// libcurl's results that may be a TLS failure; ``TLSFailure`` decides by the words.
    private static let tlsCodes: Set<UInt32> = [
        CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
        CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT,
        CURLE_USE_SSL_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_INITFAILED,
    ].reduce(into: []) { $0.insert($1.rawValue) }
}
