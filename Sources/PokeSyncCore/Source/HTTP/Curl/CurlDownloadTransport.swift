import CCurl
import Foundation
import PokedexReader
import PokedexUpdater
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The updater's transport for `pokesync install`: the updater's GETs on
/// libcurl through a ``CurlDriver`` of their own, so that a refused or cancelled download
/// (past its cap, a wrong encoding, a redirect off the server, a trickle) stops being
/// read within the callback that refused it, as the crawler's requests do.
///
/// Every request carries `userAgent` (pokesync's name and version). Nothing is decoded
/// and no redirect is followed: the updater decides, by the ``RedirectPolicy`` the crawler's
/// ``CurlHTTPTransport`` follows too (``DownloadTransport``).
package final class CurlDownloadTransport: DownloadTransport {
    private let driver: CurlDriver
    private let userAgent: String
    private let proxies: ProxyEnvironment

    package init(userAgent: String, proxies: ProxyEnvironment = .current) {
        // One download at a time, a few hosts at most: a small connection cache.
        driver = CurlDriver(maxConnections: 4, name: "pokesync.download")
        self.userAgent = userAgent
        self.proxies = proxies
    }

    deinit {
        driver.stop()  // its thread ends once no download is in flight
    }

    package func get(_ url: URL, headers: [String: String], timeout: TimeInterval,
                     receiver: any DownloadReceiver) async throws {
        let proxy = proxies.proxy(for: url)
        let request = CurlTransfer.Request(url: url, headers: headers, userAgent: userAgent,
                                           timeout: Int(timeout.rounded(.up)), deadlineMilliseconds: nil,
                                           decodeContent: false, proxy: proxy)
        let outcome: CurlOutcome
        do {
            outcome = try await driver.perform(CurlTransfer(request, sink: ReceiverSink(receiver, url: url)))
        } catch let unavailable as CurlDriver.UnavailableError {
            throw UpdateError.unreachable(source: url.absoluteString, reason: unavailable.description)
        }
        if outcome.stopReason is ReceiverSink.StopError { return }  // the receiver's own decision
        guard let failure = outcome.failure(requested: url, hop: url, proxy: proxy, deadline: 0) as? HTTPError else { return }
        throw UpdateError.unreachable(source: url.absoluteString, reason: Self.reason(failure, timeout: timeout))
    }

    /// The part of an ``HTTPError``'s line after the URL, in the updater's words.
    static func reason(_ failure: HTTPError, timeout: TimeInterval) -> String {
        switch failure {
        case .tls(_, let tls): return tls.description
        case .transport(_, let code, let message, _):
            return code == URLError.timedOut.rawValue ? "timed out: nothing received for \(Int(timeout)) s" : message
        default:
            let line = failure.description
            let prefix = "GET \(failure.url.absoluteString): "
            return line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : line
        }
    }
}

/// Hands a transfer's head and body to a ``DownloadReceiver``; its `false` ends the transfer.
private final class ReceiverSink: CurlSink {
    struct StopError: Error {}

    private let receiver: any DownloadReceiver
    private let url: URL

    init(_ receiver: any DownloadReceiver, url: URL) {
        self.receiver = receiver
        self.url = url
    }

    func head(status: Int, headers: [String: String]) -> (any Error)? {
        receiver.head(status: status, headers: headers, url: url) ? nil : StopError()
    }

    func body(_ piece: UnsafeRawBufferPointer) -> (any Error)? {
        receiver.body(piece) ? nil : StopError()
    }
}
