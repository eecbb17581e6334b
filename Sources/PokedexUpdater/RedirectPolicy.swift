import Foundation

/// Which redirects are followed, how many, and the words for one that is not: the one
/// redirect policy of every HTTP client in the package, the command line's libcurl
/// transport (the crawler) and the reader's downloads (the updater, and so `pokesync
/// install`), so that both stop at the same hop and refuse the same targets.
///
/// The rules, in order: a `Location` must be a URL; the request gives up after
/// ``maxHops`` redirects; a target on the request's own scheme, host and port is always
/// followed (PokeAPI's 301 to the slashed path); another target only when the policy's
/// `allowing` accepts it, over http or https, and never from https down to plain http.
/// A refused redirect says where to and why:
/// `redirects to file:///etc/passwd: another scheme (file), not followed`.
package struct RedirectPolicy: Sendable {
    /// Redirects answered for one request before it fails as a loop.
    package static let maxHops = 5
    /// The statuses that redirect a GET (300, 304 and 305 do not).
    package static let statuses: Set<Int> = [301, 302, 303, 307, 308]
    /// Why a request stopped after ``maxHops`` redirects.
    package static let tooManyReason = "more than \(maxHops) redirects"

    /// Same-origin redirects only: the updater's policy.
    package static let sameOriginOnly = RedirectPolicy()

    private let allowing: @Sendable (URL) -> Bool

    /// - Parameter allowing: which targets off the request's origin may be followed
    ///   (their scheme is checked here; nil-host and non-HTTP targets never are).
    package init(allowing: @escaping @Sendable (URL) -> Bool = { _ in false }) {
        self.allowing = allowing
    }

    /// A policy that also follows redirects to the given hosts (compared without case).
    package static func allowingHosts(_ hosts: Set<String>) -> RedirectPolicy {
        let hosts = Set(hosts.map { $0.lowercased() })
        return RedirectPolicy { url in url.host.map { hosts.contains($0.lowercased()) } ?? false }
    }

    /// What to do with one redirect.
    package enum Decision: Sendable, Equatable {
        /// Go on to this absolute URL.
        case follow(URL)
        /// The `Location` (quoted, cut to 200 characters) is no URL.
        case unreadable(String)
        /// This was redirect number ``maxHops`` + 1.
        case tooMany
        /// The target leaves the origin and is not allowed; ``refusal(from:to:extra:)`` words it.
        case refused(URL)
    }

    /// Decides a redirect answer's fate.
    /// - Parameters:
    ///   - location: the answer's `Location`, resolved against `hop`.
    ///   - hop: the URL that answered with the redirect.
    ///   - origin: the URL first asked for, whose origin is always followed.
    ///   - hops: redirects answered for this request so far, this one included.
    package func decide(location: String, from hop: URL, origin: URL, hops: Int) -> Decision {
        guard let target = URL(string: location, relativeTo: hop)?.absoluteURL else {
            return .unreadable(String(location.prefix(200)))
        }
        if hops > Self.maxHops { return .tooMany }
        return follows(target, origin: origin) ? .follow(target) : .refused(target)
    }

    /// Whether a request of `origin` may land on `target`: the same origin, or an allowed
    /// http(s) target that keeps https when `origin` had it.
    package func follows(_ target: URL, origin: URL) -> Bool {
        if Self.difference(from: origin, to: target) == nil { return true }
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "https" || (scheme == "http" && origin.scheme?.lowercased() != "https") else { return false }
        return allowing(target)
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

    /// `redirects to TARGET: WHY, not followed`, for a target ``decide(location:from:origin:hops:)`` refused.
    package static func refusal(from origin: URL, to target: URL, extra: String? = nil) -> String {
        let why = difference(from: origin, to: target) ?? "not allowed"
        return "redirects to \(target.absoluteString): \(why), not followed" + (extra.map { "; \($0)" } ?? "")
    }

    private static func port(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }
}
