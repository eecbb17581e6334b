import Foundation

/// The proxy a URL goes through, chosen from the environment as libcurl chooses it
/// (`http_proxy` for `http://`, lower case only; `https_proxy` then `HTTPS_PROXY` for
/// `https://`; else `all_proxy` then `ALL_PROXY`; `no_proxy` or `NO_PROXY` to go direct).
///
/// The command line's transport on Linux sets the proxy it chose explicitly on each
/// transfer, so that a failure can name the proxy that was really used (`the proxy
/// 127.0.0.1:3128 (https_proxy) ...`) instead of the origin behind it.
package struct ProxyEnvironment: Sendable, Equatable {
    /// A proxy as a variable names it.
    package struct Proxy: Sendable, Equatable {
        /// The variable's value, as libcurl takes it (`http://user:secret@proxy:3128`).
        package var url: String
        /// `host:port`, with libcurl's default port 1080 when the value names none; never the credentials.
        package var hostAndPort: String
        /// The variable it came from (`https_proxy`).
        package var variable: String

        /// `127.0.0.1:3128 (https_proxy)`: how messages name it.
        package var name: String { "\(hostAndPort) (\(variable))" }
    }

    private let variables: [String: String]

    /// The process's own environment, read once.
    package static let current = ProxyEnvironment(ProcessInfo.processInfo.environment)

    package init(_ variables: [String: String]) {
        self.variables = variables.filter { !$0.value.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// The proxy for `url`, or nil to go direct.
    package func proxy(for url: URL) -> Proxy? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        // libcurl reads `http_proxy` in lower case only (the CGI `HTTP_PROXY` header trap).
        let names = scheme == "http" ? ["http_proxy"] : ["\(scheme)_proxy", "\(scheme.uppercased())_PROXY"]
        guard let variable = (names + ["all_proxy", "ALL_PROXY"]).first(where: { variables[$0] != nil }),
              let value = variables[variable] else { return nil }
        if let list = variables["no_proxy"] ?? variables["NO_PROXY"], Self.matches(list, host: host) { return nil }
        return Proxy(url: value, hostAndPort: Self.hostAndPort(value), variable: variable)
    }

    /// Whether `no_proxy` names `host`: `*`, the host itself, or a domain it is in
    /// (`example.org` and `.example.org` both cover `api.example.org`). Addresses match
    /// as written: `localhost` does not cover `127.0.0.1`.
    static func matches(_ list: String, host: String) -> Bool {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let entries = list.split(whereSeparator: { $0 == "," || $0 == " " }).map { String($0).lowercased() }
        return entries.contains { entry in
            if entry == "*" { return true }
            let name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            let bare = name.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return !bare.isEmpty && (host == bare || host.hasSuffix("." + bare))
        }
    }

    /// `host:port` of a proxy value (`http://user:pw@host:3128/` gives `host:3128`).
    static func hostAndPort(_ value: String) -> String {
        let text = value.contains("://") ? value : "http://" + value
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else { return value }
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(shown):\(components.port ?? 1080)"
    }
}
