import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A TLS failure of one server: its certificate is not trusted, is for another name, has
/// expired, or the two sides share no protocol or cipher. Another attempt meets the same
/// certificate, so it is reported at once, naming the host and what to do on this platform.
///
/// Apple's URLSession says which by the `URLError` code (-1200 to -1206). FoundationNetworking
/// on Linux maps every TLS error of libcurl to `URLError -1` (`.unknown`), with libcurl's
/// own text as the description, e.g. `SSL certificate problem: self-signed certificate`
/// (measured with libcurl 7.88.1 and OpenSSL 3.0 against Python `ssl` servers: an untrusted,
/// expired, not yet valid and wrongly named certificate, plain HTTP on the port, no common
/// cipher, an unreadable CA bundle). Only those texts count: a reset during the handshake
/// (`Recv failure`, `SSL_ERROR_SYSCALL`) stays a retryable transport error.
package struct TLSFailure: Sendable, Equatable, CustomStringConvertible {
    /// What failed.
    package enum Problem: Sendable, Equatable {
        /// No CA this machine trusts signed the certificate (self-signed, a private CA, a
        /// TLS-inspecting proxy).
        case untrusted
        /// The certificate is valid, but for other names than the one asked for.
        case nameMismatch
        /// The certificate's validity ended (or this machine's clock is ahead).
        case expired
        /// The certificate's validity has not begun (or this machine's clock is behind).
        case notYetValid
        /// Another verification failure (revoked, unsuitable ...).
        case certificateRefused
        /// No TLS version or cipher in common, or the handshake refused.
        case handshake
        /// The port does not speak TLS (plain HTTP?).
        case notTLS
        /// The server asked for a client certificate, or refused the one sent.
        case clientCertificate
        /// This machine's CA bundle cannot be read (a container without ca-certificates).
        case noTrustStore
    }

    /// `host:port` as the URL names it.
    package var host: String
    package var problem: Problem
    /// The TLS library's own words, e.g. `SSL certificate problem: certificate has expired`.
    package var detail: String

    /// A failure as named: `host` is `host:port`.
    package init(host: String, problem: Problem, detail: String) {
        self.host = host
        self.problem = problem
        self.detail = detail
    }

    /// The TLS failure `error` stands for, or nil when it is another kind of failure.
    /// - Parameter url: the URL asked for; the error's own failing URL names the host
    ///   when it has one (a redirect's target fails with its own certificate).
    package init?(_ error: any Error, url: URL) {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return nil }
        let detail = (nsError.userInfo[NSLocalizedDescriptionKey] as? String) ?? nsError.localizedDescription
        guard let problem = Self.problem(code: nsError.code) ?? Self.problem(text: detail) else { return nil }
        let failing = (nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL).flatMap { $0.host == nil ? nil : $0 }
        self.init(host: Self.hostAndPort(failing ?? url), problem: problem, detail: detail)
    }

    /// The TLS failure libcurl's own words name (its error buffer, as the command line's
    /// transport on Linux reads it), or nil when they name another kind of failure.
    /// - Parameter url: the URL of the transfer that failed (a redirect's target names its own host).
    package init?(libcurlMessage detail: String, url: URL) {
        guard let problem = Self.problem(text: detail) else { return nil }
        self.init(host: Self.hostAndPort(url), problem: problem, detail: detail)
    }

    /// `host:port`, with the scheme's default port when the URL names none.
    package static func hostAndPort(_ url: URL) -> String {
        let host = url.host ?? "?"
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        return "\(host):\(port)"
    }

    /// Apple's codes (FoundationNetworking does not use them, but may one day).
    private static func problem(code: Int) -> Problem? {
        switch code {
        case -1202, -1203: .untrusted  // ServerCertificateUntrusted, HasUnknownRoot (a wrong name is -1202 too)
        case -1201: .expired  // ServerCertificateHasBadDate
        case -1204: .notYetValid
        case -1200: .handshake  // SecureConnectionFailed
        case -1205, -1206: .clientCertificate  // ClientCertificateRejected, ClientCertificateRequired
        default: nil
        }
    }

    /// libcurl's messages (its error buffer, or `curl_easy_strerror` when that is empty).
    private static func problem(text: String) -> Problem? {
        let text = text.lowercased()
        func has(_ parts: String...) -> Bool { parts.contains { text.contains($0) } }
        // A connection cut during the handshake is the network's, not the certificate's.
        if has("ssl_error_syscall", "connection reset", "recv failure", "send failure") { return nil }
        if has("ssl certificate problem") {
            if has("expired") { return .expired }
            if has("not yet valid") { return .notYetValid }
            if has("self-signed", "self signed", "unable to get local issuer", "unable to get issuer",
                   "unable to verify the first certificate", "unknown ca") { return .untrusted }
            return .certificateRefused
        }
        if has("no alternative certificate subject name", "does not match target host name",
               "subject name does not match") { return .nameMismatch }
        if has("error setting certificate file", "error setting certificate verify locations",
               "problem with the ssl ca cert") { return .noTrustStore }
        if has("wrong version number", "packet length too long") { return .notTLS }
        if has("certificate required", "bad certificate", "could not load pem client certificate",
               "unable to set private key") { return .clientCertificate }
        if has("alert handshake failure", "alert protocol version", "unsupported protocol", "no protocols available",
               "no shared cipher", "no ciphers available", "no cipher match", "legacy sigalg",
               "unsafe legacy renegotiation", "insufficient security", "dh key too small", "ee key too small") {
            return .handshake
        }
        if has("ssl peer certificate or ssh remote key was not ok", "peer certificate cannot be authenticated") {
            return .certificateRefused
        }
        return nil
    }

    /// What failed, e.g. `the certificate of localhost:8443 is not trusted by this machine
    /// (SSL certificate problem: self-signed certificate)`.
    package var summary: String {
        let what = switch problem {
        case .untrusted: "the certificate of \(host) is not trusted by this machine"
        case .nameMismatch: "the certificate of \(host) is for another name"
        case .expired: "the certificate of \(host) has expired"
        case .notYetValid: "the certificate of \(host) is not valid yet"
        case .certificateRefused: "the certificate of \(host) was refused"
        case .handshake: "no TLS handshake with \(host): no protocol version or cipher in common"
        case .notTLS: "\(host) does not answer in TLS (plain HTTP on that port?)"
        case .clientCertificate: "\(host) wants a client certificate"
        case .noTrustStore: "this machine's CA certificates cannot be read"
        }
        return "TLS: \(what) (\(detail))"
    }

    /// What to do about it here.
    package var remedy: String {
        switch problem {
        case .untrusted, .certificateRefused: Self.trustRemedy
        case .nameMismatch: "use a name the certificate is for, or a certificate for this name"
        case .expired, .notYetValid: "the server's certificate must be renewed (or this machine's clock is wrong)"
        case .handshake: "the server must allow TLS 1.2 or 1.3 with current ciphers"
        case .notTLS: "use http:// for a plain HTTP port, or the server's TLS port"
        case .clientCertificate: "client certificates are not supported"
        case .noTrustStore: Self.trustStoreRemedy
        }
    }

    /// `summary; not retried; remedy`: one line.
    package var description: String {
        "\(summary); not retried; \(remedy)"
    }

    // How this platform is told to trust a private CA, and where its CA bundle comes from.
    #if os(Linux)
    /// How this platform is told to trust a private CA.
    package static let trustRemedy = "to trust a private CA, copy it (PEM, named *.crt) into /usr/local/share/ca-certificates/ "
        + "and run update-ca-certificates (FoundationNetworking reads /etc/ssl/certs/ca-certificates.crt)"
    static let trustStoreRemedy = "install the ca-certificates package (it writes /etc/ssl/certs/ca-certificates.crt, "
        + "which FoundationNetworking reads)"
    #elseif os(macOS)
    /// How this platform is told to trust a private CA.
    package static let trustRemedy = "to trust a private CA, add it to the System keychain as trusted "
        + "(security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain CA.crt)"
    static let trustStoreRemedy = trustRemedy
    #else
    /// How this platform is told to trust a private CA.
    package static let trustRemedy = "to trust a private CA, install it as a profile and turn on full trust for it "
        + "(Settings > General > About > Certificate Trust Settings)"
    static let trustStoreRemedy = trustRemedy
    #endif
}
