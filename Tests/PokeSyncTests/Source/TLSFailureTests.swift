import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

/// How transfer failures are read: which are TLS failures (libcurl's words, as the command
/// line's transport and FoundationNetworking under the reader give them; Apple's codes
/// for the reader's URLSession elsewhere), and what other transfer failures say.
@Suite("TLS failures and transfer messages")
struct TLSFailureTests {
    static let url = URL(string: "https://pokeapi.example:8443/api/v2/pokemon/25/")!

    /// A URLError as FoundationNetworking makes it: code -1, libcurl's text as description.
    static func curlError(_ text: String, code: URLError.Code = .unknown) -> URLError {
        URLError(code, userInfo: [NSLocalizedDescriptionKey: text])
    }

    /// The error the HTTP client makes of a TLS failure libcurl words as `text`.
    static func tlsError(_ text: String) -> HTTPError {
        HTTPError.tls(url: url, failure: TLSFailure(curlError(text), url: url)!)
    }

    /// The error the HTTP client makes of a libcurl failure without a code of its own.
    static func transferError(_ text: String) -> HTTPError {
        HTTPError.transport(url: url, code: URLError.unknown.rawValue, message: HTTPError.unknownTransferMessage(text))
    }

    /// Texts libcurl 7.88.1 with OpenSSL 3.0 gave through FoundationNetworking against
    /// Python `ssl` servers on this machine (see TLSFailure).
    static let measured: [(String, TLSFailure.Problem?)] = [
        ("SSL certificate problem: self-signed certificate", .untrusted),
        ("SSL certificate problem: unable to get local issuer certificate", .untrusted),
        ("SSL certificate problem: certificate has expired", .expired),
        ("SSL certificate problem: certificate is not yet valid", .notYetValid),
        ("SSL: no alternative certificate subject name matches target host name 'localhost'", .nameMismatch),
        ("OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number", .notTLS),
        ("OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure", .handshake),
        ("OpenSSL/3.0.19: error:0A00014D:SSL routines::legacy sigalg disallowed or unsupported", .handshake),
        ("error setting certificate file: /etc/ssl/certs/ca-certificates.crt", .noTrustStore),
        // Not TLS: the network's failures stay retryable.
        ("Recv failure: Connection reset by peer", nil),
        ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:8443", nil),
        ("transfer closed with 120 bytes remaining to read", nil),
    ]

    @Test("libcurl's texts are classified as measured")
    func classifiesLibcurlTexts() {
        for (text, expected) in Self.measured {
            let failure = TLSFailure(Self.curlError(text), url: Self.url)
            #expect(failure?.problem == expected, "\(text)")
            #expect(failure.map { $0.host == "pokeapi.example:8443" && $0.detail == text } ?? true)
        }
    }

    @Test("Apple's TLS codes are classified")
    func classifiesAppleCodes() {
        let codes: [(URLError.Code, TLSFailure.Problem)] = [
            (.serverCertificateUntrusted, .untrusted), (.serverCertificateHasUnknownRoot, .untrusted),
            (.serverCertificateHasBadDate, .expired), (.serverCertificateNotYetValid, .notYetValid),
            (.secureConnectionFailed, .handshake), (.clientCertificateRejected, .clientCertificate),
            (.clientCertificateRequired, .clientCertificate),
        ]
        for (code, problem) in codes {
            #expect(TLSFailure(URLError(code), url: Self.url)?.problem == problem, "\(code.rawValue)")
        }
        #expect(TLSFailure(URLError(.timedOut), url: Self.url) == nil)
        #expect(TLSFailure(URLError(.networkConnectionLost), url: Self.url) == nil)
    }

    @Test("a TLS failure is one line naming the host and the remedy, and is not retried")
    func tlsLine() {
        let error = Self.tlsError("SSL certificate problem: certificate has expired")
        #expect(!error.isRetryable && error.exitStatus == .unavailable)
        #expect(error.description == "GET \(Self.url.absoluteString): TLS: the certificate of pokeapi.example:8443 "
                + "has expired (SSL certificate problem: certificate has expired); not retried; the server's "
                + "certificate must be renewed (or this machine's clock is wrong)")
        let untrusted = Self.tlsError("SSL certificate problem: self-signed certificate")
        #expect(untrusted.description.hasSuffix("; not retried; " + TLSFailure.trustRemedy))
        // The default port is named when the URL has none.
        let plain = TLSFailure(Self.curlError("SSL certificate problem: self-signed certificate"),
                               url: URL(string: "https://pokeapi.co/api/v2/")!)
        #expect(plain?.host == "pokeapi.co:443")
        // A redirect's target that fails is named by the error's own failing URL.
        let redirected = URLError(.unknown, userInfo: [
            NSLocalizedDescriptionKey: "SSL certificate problem: self-signed certificate",
            NSURLErrorFailingURLErrorKey: URL(string: "https://sprites.example/a.png")!,
        ])
        #expect(TLSFailure(redirected, url: Self.url)?.host == "sprites.example:443")
    }

    @Test("other transfer failures keep their retries and name libcurl's words")
    func otherTransferFailures() {
        let cut = Self.transferError("transfer closed with 120 bytes remaining to read")
        #expect(cut.isRetryable)
        #expect(cut.description == "GET \(Self.url.absoluteString): truncated body (transfer closed with 120 bytes "
                + "remaining to read)")
        let reset = Self.transferError("Recv failure: Connection reset by peer")
        #expect(reset.isRetryable)
        #expect(reset.description == "GET \(Self.url.absoluteString): transfer failed (Recv failure: Connection reset by peer)")
        #expect(HTTPError.unknownTransferMessage(nil) == "transfer failed (truncated body?)")
        // A body its Content-Encoding does not decode is said so, refused at once, never a truncation.
        let undecodable = HTTPError.badEncoding(url: Self.url, encoding: nil)
        #expect(!undecodable.isRetryable)
        #expect(undecodable.description == "GET \(Self.url.absoluteString): body not in the encoding its Content-Encoding announces, refused, not retried")
        #expect(HTTPError.badEncoding(url: Self.url, encoding: "deflate").description
                == "GET \(Self.url.absoluteString): body not deflate as announced (Content-Encoding: deflate), refused, not retried")
        for error in [cut, reset, undecodable] { #expect(!error.description.contains("URLError")) }
    }

    @Test("the default User-Agent names pokesync and its version and no address; contact is the operator's")
    func userAgent() {
        #expect(PokeSync.userAgent(contact: nil) == "pokesync/\(PokeSync.version) (offline PokeAPI mirror)")
        #expect(PokeSync.userAgent(contact: "ops@example.org")
                == "pokesync/\(PokeSync.version) (offline PokeAPI mirror; ops@example.org)")
        #expect(!HTTPClientConfiguration.defaultUserAgent.contains("http"))
    }
}
