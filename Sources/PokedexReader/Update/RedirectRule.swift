import Foundation

/// Which redirects are followed without asking (same scheme, host and port), and the
/// words for one that is not, shared by the updater and the command line's HTTP client
/// so that a refused redirect always says where to and why:
/// `redirects to file:///etc/passwd: another scheme (file), not followed`.
package enum RedirectRule {
    /// Same scheme, host and port (the scheme's default port when none is written).
    package static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        difference(from: a, to: b) == nil
    }

    /// How `target` leaves `origin`'s origin (`another scheme (https)`, `another host
    /// (127.0.0.2)`, `another port (8443)`, joined by "and"), or nil when it does not.
    package static func difference(from origin: URL, to target: URL) -> String? {
        let originScheme = origin.scheme?.lowercased() ?? "", targetScheme = target.scheme?.lowercased() ?? ""
        var parts: [String] = []
        if originScheme != targetScheme { parts.append("another scheme (\(targetScheme.isEmpty ? "none" : targetScheme))") }
        // Host and port only mean something for another HTTP URL (file: has neither).
        if targetScheme == "http" || targetScheme == "https" {
            let originHost = origin.host?.lowercased() ?? "", targetHost = target.host?.lowercased() ?? ""
            if originHost != targetHost { parts.append("another host (\(targetHost))") }
            let samePorts = port(origin) == port(target)
            // http -> https changes the default port with the scheme: the scheme says it.
            if !samePorts, originScheme == targetScheme || (origin.port != nil && target.port != nil) {
                parts.append("another port (\(port(target).map(String.init) ?? "none"))")
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: " and ")
    }

    /// `redirects to TARGET: WHY, not followed`, for a target ``difference(from:to:)`` refused.
    package static func refusal(from origin: URL, to target: URL, extra: String? = nil) -> String {
        let why = difference(from: origin, to: target) ?? "not allowed"
        return "redirects to \(target.absoluteString): \(why), not followed" + (extra.map { "; \($0)" } ?? "")
    }

    private static func port(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }
}
