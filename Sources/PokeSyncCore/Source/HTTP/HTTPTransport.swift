import Foundation

/// How ``HTTPClient`` moves one exchange: libcurl on Linux (``CurlHTTPTransport``),
/// URLSession on Apple platforms (``URLSessionHTTPTransport``).
protocol HTTPTransport: Sendable {
    /// One GET of `url`, following redirects the configuration allows, its (decoded) body
    /// stopped past `cap` bytes.
    /// - Throws: ``HTTPError`` for a failed exchange, `CancellationError` when the awaiting task is cancelled.
    func exchange(_ url: URL, headers: [String: String], cap: Int) async throws -> HTTPResponse
    /// Lets exchanges in flight finish; later ones fail.
    func invalidate()
}
