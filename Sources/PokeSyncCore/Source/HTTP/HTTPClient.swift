import Foundation
import PokeLocking
import PokedexReader
import PokedexUpdater
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP response. A 304 or a 404 is a normal response, not an error.
package struct HTTPResponse: Sendable {
    /// The final URL, after redirects.
    package var url: URL
    /// The status code: 200, 304, 404 ...
    package var status: Int
    /// Header fields, names lower-cased.
    package var headers: [String: String]
    /// The body, already decoded when it was sent gzip-encoded.
    package var body: Data

    /// The body's size as sent (``WireSize/of(status:decodedBytes:contentLength:contentEncoding:)``):
    /// its Content-Length when given (the compressed size of a gzip-encoded body), the
    /// decoded size of a body that was not encoded, unknown for an encoded one without a
    /// length. Header bytes are not counted.
    package var wireSize: WireSize {
        WireSize.of(status: status, decodedBytes: body.count, contentLength: headers["content-length"],
                    contentEncoding: headers["content-encoding"])
    }

    package init(url: URL, status: Int, headers: [String: String], body: Data) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of a header field, whatever the case of `name`.
    package func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// How an ``HTTPClient`` talks to servers.
package struct HTTPClientConfiguration: Sendable {
    /// Sent with every request; the PokeAPI fair-use policy asks for a real one.
    package var userAgent: String
    /// `httpMaximumConnectionsPerHost`. Keep requests in flight at or below it:
    /// requests queued behind the cap already run their timeout clock.
    package var maxConnectionsPerHost: Int
    /// Seconds without progress before a request fails (whole seconds; an inactivity timer, not a deadline).
    package var timeout: Int
    /// Seconds one attempt may take in all, from sending the request to the body's last
    /// byte; nil means ``deadlineFactor`` × `timeout`. An attempt past it fails as a
    /// retryable timeout, so a server trickling one byte a second cannot hold a run for ever.
    package var deadline: Int?
    /// Largest accepted (decoded) body; a larger one is stopped while streaming.
    package var maxBodyBytes: Int
    /// `--rate`: requests per second across all requests of the client; nil means unlimited.
    package var requestsPerSecond: Double?
    /// Retries of ``HTTPClient/fetch(_:headers:validate:)``.
    package var retry: RetryPolicy
    /// Which redirects are followed, and how many (the requested URL's own scheme, host
    /// and port always are: PokeAPI's 301 to the slashed path). A redirect elsewhere
    /// fails with ``HTTPError/redirectRefused(from:to:)`` without contacting the new host.
    package var redirects: RedirectPolicy

    package static let defaultUserAgent = PokeSync.userAgent(contact: nil)

    /// Seconds of silence before a request is retried when neither `--timeout` nor `mirror.json` says.
    package static let defaultTimeout = 30

    /// The default deadline of an attempt, in multiples of `timeout` (`--timeout 30`: 2 minutes).
    package static let deadlineFactor = 4

    /// The deadline in force: `deadline`, else ``deadlineFactor`` × `timeout`.
    package var attemptDeadline: Int {
        max(1, deadline ?? timeout * Self.deadlineFactor)
    }

    package init(userAgent: String = HTTPClientConfiguration.defaultUserAgent, maxConnectionsPerHost: Int = 6,
                timeout: Int = HTTPClientConfiguration.defaultTimeout, deadline: Int? = nil, maxBodyBytes: Int = 16 << 20, requestsPerSecond: Double? = nil,
                retry: RetryPolicy = RetryPolicy(),
                redirects: RedirectPolicy = .sameOriginOnly) {
        self.userAgent = userAgent
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.timeout = timeout
        self.deadline = deadline
        self.maxBodyBytes = maxBodyBytes
        self.requestsPerSecond = requestsPerSecond
        self.retry = retry
        self.redirects = redirects
    }
}

/// Counters for progress reports and benchmarks.
package struct HTTPStatistics: Sendable, Equatable {
    /// Attempts sent over the wire (first tries and retries).
    package var requestsSent = 0
    /// Attempts that were retries.
    package var retries = 0
    /// Decoded body bytes of completed responses.
    package var bodyBytesReceived = 0
    /// Completed responses by status code.
    package var responsesByStatus: [Int: Int] = [:]
    /// Attempts that failed without a usable response (transport, body cap, refused redirect).
    package var failures = 0

    package init() {}
}

/// A GET-only HTTP client: retries with backoff, a body cap, vetted redirects and an
/// optional request-rate cap shared by all requests.
///
/// The exchanges go through libcurl itself (``CurlHTTPTransport`` on a ``CurlDriver``: a
/// body past its cap or a cancelled request stops being read at once), on every platform
/// the command line builds for.
package final class HTTPClient: Sendable {
    /// What this client was made with.
    package let configuration: HTTPClientConfiguration
    private let transport: CurlHTTPTransport
    private let rateLimiter: RateLimiter?
    private let counters = Locked(HTTPStatistics())
    /// The first request to an https origin goes alone (``TLSGate`` says why).
    private let tlsGate = TLSGate()
    private let invalidated = Locked(false)

    /// Creates the client and its transport (no cache, no cookies, keep-alive for the run).
    package init(configuration: HTTPClientConfiguration) {
        self.configuration = configuration
        transport = CurlHTTPTransport(configuration: configuration)
        rateLimiter = configuration.requestsPerSecond.map { RateLimiter(requestsPerSecond: $0) }
    }

    deinit {
        invalidate()
    }

    /// The counters so far.
    package var statistics: HTTPStatistics {
        counters.withLock { $0 }
    }

    /// Finishes the transport: requests in flight complete; later requests fail
    /// with a non-retryable ``HTTPError/transport(url:code:message:attempts:)``.
    /// Do not call it while other tasks may still start requests.
    package func invalidate() {
        if !invalidated.withLock({ wasInvalidated in defer { wasInvalidated = true }; return wasInvalidated }) {
            transport.invalidate()
        }
    }

    /// One GET attempt, after waiting for the rate cap.
    ///
    /// Every status comes back as an ``HTTPResponse``: 2xx, 304, every 4xx and 5xx;
    /// the caller decides what they mean.
    /// - Parameter headers: extra request headers, e.g. `If-None-Match`.
    /// - Throws: ``HTTPError/transport(url:code:message:attempts:)`` when the exchange
    ///   fails or the client was invalidated, ``HTTPError/tls(url:failure:)`` when the
    ///   origin's TLS handshake fails (or failed for an earlier request), ``HTTPError/bodyTooLarge(url:limit:)``,
    ///   ``HTTPError/redirectRefused(from:to:)``, ``HTTPError/proxyRefused(url:proxy:status:)``, and `CancellationError` when the
    ///   awaiting task is cancelled (the request is cancelled with it).
    /// - Parameter maxBodyBytes: this request's cap, below the configuration's (a linked
    ///   file's own limit); nil for the configuration's.
    package func send(_ url: URL, headers: [String: String] = [:], maxBodyBytes: Int? = nil) async throws -> HTTPResponse {
        try await rateLimiter?.acquire()
        try Task.checkCancellation()
        // A task of an invalidated session is never started nor completed: fail instead of hanging.
        guard !invalidated.withLock({ $0 }) else {
            throw HTTPError.transport(url: url, code: URLError.cancelled.rawValue, message: "HTTP client already invalidated")
        }
        let first = try await tlsGate.enter(url)
        var outcome = TLSGate.Outcome.otherwise
        defer { if first { tlsGate.settle(url, as: outcome) } }
        counters.withLock { $0.requestsSent += 1 }
        do {
            let cap = min(maxBodyBytes ?? configuration.maxBodyBytes, configuration.maxBodyBytes)
            let response = try await transport.exchange(url, headers: headers, cap: cap)
            counters.withLock {
                $0.bodyBytesReceived += response.body.count
                $0.responsesByStatus[response.status, default: 0] += 1
            }
            return response
        } catch let error as HTTPError {
            // A redirect's target failing with its own certificate says nothing of this origin's.
            if case .tls(_, let failure) = error, failure.host == TLSFailure.hostAndPort(url) { outcome = .tlsFailed(error) }
            // A proxy that refuses the tunnel to this origin refuses every request to it alike:
            // the gate fails those waiting and those after without asking the proxy again.
            if case .proxyRefused = error { outcome = .tlsFailed(error) }
            counters.withLock { $0.failures += 1 }
            throw error
        }
    }

    /// GETs `url`, retrying what may succeed on a second try, and returns what
    /// `validate` makes of the response.
    ///
    /// Retried: transport failures (timeouts, resets, truncated bodies) but TLS failures and
    /// a body its `Content-Encoding` does not decode (``HTTPError/badEncoding(url:encoding:)``), 5xx, 429
    /// (waiting at least its `Retry-After`), and `validate` throwing
    /// ``HTTPError/invalidBody(url:reason:)`` (a 200 whose body is short or does not
    /// parse). 304, 404 and other 4xx are passed to `validate` like any response.
    /// - Parameter validate: turns a response into the caller's value; throws
    ///   `HTTPError.invalidBody` to ask for a retry, anything else to give up.
    /// - Throws: the last retryable ``HTTPError`` once `maxAttempts` are spent
    ///   (``HTTPError/status(url:status:attempts:)`` for a 5xx or 429), any
    ///   non-retryable error at once, `CancellationError` when cancelled.
    package func fetch<T: Sendable>(_ url: URL, headers: [String: String] = [:], maxBodyBytes: Int? = nil,
                                   validate: @Sendable (HTTPResponse) throws -> T) async throws -> T {
        let policy = configuration.retry
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            let failure: HTTPError
            var retryAfter: Duration?
            do {
                let response = try await send(url, headers: headers, maxBodyBytes: maxBodyBytes)
                if response.status == 429 || (500...599).contains(response.status) {
                    failure = .status(url: url, status: response.status)
                    retryAfter = response.header("retry-after").flatMap { RetryPolicy.retryAfter(from: $0) }
                } else {
                    return try validate(response)
                }
            } catch let error as HTTPError where error.isRetryable {
                failure = error
            }
            guard attempt < policy.maxAttempts else { throw failure.afterAttempts(attempt) }
            counters.withLock { $0.retries += 1 }
            try await Task.sleep(for: policy.delay(forAttempt: attempt, retryAfter: retryAfter))
        }
    }
}
