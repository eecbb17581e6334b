import Foundation

/// How the updater moves the bytes of one GET: URLSession by default
/// (``URLSessionDownloadTransport``); the `pokesync` command line hands its own libcurl
/// transport in on Linux, where FoundationNetworking's cancel does not stop a transfer.
///
/// A transport only moves bytes: every decision (which statuses, redirects and encodings
/// are accepted, the size cap, the SHA-256, the minimum rate) is ``CappedDownload``'s, so
/// every transport refuses the same things with the same words.
package protocol DownloadTransport: Sendable {
    /// Sends one GET of `url` with `headers` (no others but a User-Agent of the transport's
    /// choosing) and hands the response to `receiver` as it arrives. No redirect is
    /// followed (a 3xx reaches ``DownloadReceiver/head(status:headers:url:)`` like any
    /// response), and no Content-Encoding is asked for or decoded.
    ///
    /// Returns when the body has ended or the receiver stopped the transfer; nothing is
    /// read after a receiver's `false`.
    /// - Parameter timeout: seconds without a byte (or without a connection) before the transfer fails.
    /// - Throws: ``UpdateError/unreachable(source:reason:)`` when the exchange fails (a TLS
    ///   failure in ``TLSFailure``'s words), `CancellationError` when the awaiting task is
    ///   cancelled: the transfer then stops at once.
    func get(_ url: URL, headers: [String: String], timeout: TimeInterval, receiver: any DownloadReceiver) async throws
}

/// What a ``DownloadTransport`` hands a response to, from its own thread, one call at a time.
package protocol DownloadReceiver: AnyObject, Sendable {
    /// The response's status and header fields (names lower-cased), and the URL it came
    /// from; false ends the transfer before its body.
    func head(status: Int, headers: [String: String], url: URL) -> Bool
    /// The next piece of the body; false ends the transfer in this call.
    func body(_ piece: UnsafeRawBufferPointer) -> Bool
}
