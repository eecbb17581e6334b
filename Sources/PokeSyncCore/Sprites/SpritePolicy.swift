import Foundation

/// Where sprite bytes come from when `--sprite-source` maps the upstream prefix.
package enum SpriteSource: Sendable, Equatable, CustomStringConvertible {
    /// A server holding the sprites repository's layout (a test server, a mirror).
    case http(URL)
    /// A local clone of PokeAPI/sprites.
    case folder(URL)

    package var description: String {
        switch self {
        case .http(let url): return url.absoluteString
        case .folder(let url): return url.path
        }
    }
}

/// Decides, for each sprite URL a document names, whether it may be fetched, from
/// where, and where it goes in the sprite tree. Nothing outside the allow-list is
/// ever contacted, and no path can leave the tree.
package struct SpritePolicy: Sendable {
    /// Sprite URLs in documents start with this; the rest of the path below `sprites/`
    /// is the sprite's place in the tree.
    package static let upstreamPrefix = LinkedTree.sprites.upstreamPrefix
    package static let imageExtensions: Set<String> = ["png", "gif", "svg"]

    /// Where sprites may be fetched from: scheme, host and port, so that an allowed
    /// host does not open its other ports (`http://127.0.0.1:6379/...`) or plain http.
    package var allowedOrigins: Set<Origin>
    package var source: SpriteSource?
    /// The tree this policy places files in: sprites, or cries (`--cry-source` maps theirs).
    package var tree: LinkedTree

    /// - Parameters:
    ///   - sourceURL: the document source's base URL; its origin is allowed.
    ///   - extraHosts: `--allow-host` values, `HOST` (https on 443, http on 80) or `HOST:PORT`.
    ///   - tree: the tree whose links this policy resolves.
    package init(sourceURL: URL?, extraHosts: [String] = [], source: SpriteSource? = nil, tree: LinkedTree = .sprites) {
        var origins: Set<Origin> = [Origin(scheme: "https", host: "raw.githubusercontent.com", port: 443)]
        if let sourceURL, let origin = Origin(sourceURL) { origins.insert(origin) }
        if case .http(let base)? = source, let origin = Origin(base) { origins.insert(origin) }
        for text in extraHosts {
            let parts = text.lowercased().split(separator: ":", maxSplits: 1).map(String.init)
            guard let host = parts.first, !host.isEmpty else { continue }
            if parts.count == 2, let port = Int(parts[1]) {
                origins.insert(Origin(scheme: "https", host: host, port: port))
                origins.insert(Origin(scheme: "http", host: host, port: port))
            } else {
                origins.insert(Origin(scheme: "https", host: host, port: 443))
                origins.insert(Origin(scheme: "http", host: host, port: 80))
            }
        }
        self.allowedOrigins = origins
        self.source = source
        self.tree = tree
    }

    /// Scheme, lower-cased host and port (the scheme's default when absent).
    package struct Origin: Hashable, Sendable {
        package var scheme: String
        package var host: String
        package var port: Int

        package init(scheme: String, host: String, port: Int) {
            self.scheme = scheme
            self.host = host
            self.port = port
        }

        package init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = url.host?.lowercased(), !host.isEmpty else { return nil }
            self.init(scheme: scheme, host: host, port: url.port ?? (scheme == "https" ? 443 : 80))
        }
    }

    /// Whether `url` may be contacted at all (also asked of every redirect).
    package func allows(_ url: URL) -> Bool {
        Origin(url).map(allowedOrigins.contains) ?? false
    }

    /// A sprite that may be fetched.
    package struct Resolved: Sendable, Equatable {
        /// Its place below `sprites/`, e.g. `pokemon/25.png`.
        package var path: String
        package var location: Location
        /// The tree it goes in.
        package var tree: LinkedTree = .sprites
        package var fileExtension: String { String(path.split(separator: ".").last ?? "") }
    }

    package enum Location: Sendable, Equatable {
        case http(URL)
        case file(URL)
    }

    /// Resolves `text`, or says why it is refused.
    package func resolve(_ text: String) -> Result<Resolved, SpriteURLError> {
        // Checked on the text as written: a lenient parser would keep "%zz" as a literal.
        if let reason = Self.percentEscapeProblem(text) { return .failure(SpriteURLError(reason)) }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https" else {
            return .failure(SpriteURLError("not an http(s) URL"))
        }
        guard let host = components.host?.lowercased(), !host.isEmpty, let url = components.url else {
            return .failure(SpriteURLError("no host"))
        }
        guard components.query == nil, components.fragment == nil, components.user == nil else {
            return .failure(SpriteURLError("query, fragment or credentials in a \(tree.noun) URL"))
        }
        let isUpstream = text.hasPrefix(tree.upstreamPrefix)
        // Mapped upstream URLs are fetched from the sprite source, never from their own host.
        if !(isUpstream && source != nil), !allows(url) {
            let port = components.port.map { ":\($0)" } ?? ""
            return .failure(SpriteURLError("\(scheme)://\(host)\(port) is not on the allow-list"))
        }
        let encodedPath = components.percentEncodedPath
        guard let decoded = encodedPath.removingPercentEncoding else {
            return .failure(SpriteURLError("malformed percent-encoding"))
        }
        // The place in the tree is the path below the sprites repository's `sprites/`
        // folder, in that repository's layout only (on raw.githubusercontent.com, another
        // allowed host, or below an http --sprite-source base), so that two hosts with
        // other layouts cannot put unrelated files at the same place.
        guard let prefix = layoutPrefixes(for: url).first(where: { decoded.hasPrefix($0) }) else {
            return .failure(SpriteURLError("not below the \(tree.folderName) folder of the PokeAPI/\(tree.folderName) layout (\(tree.repositoryLayout)...)"))
        }
        let treePath = decoded.dropFirst(prefix.count)
        if let reason = Self.unsafeReason(treePath) { return .failure(SpriteURLError(reason)) }
        let path = String(treePath)
        guard let ext = path.split(separator: ".").last.map({ $0.lowercased() }), path.contains("."),
              tree.extensions.contains(ext) else {
            return .failure(SpriteURLError("not \(tree.extensionsDescription)"))
        }
        let location: Location
        switch (isUpstream, source) {
        case (true, .http(let base)?):
            location = .http(Self.join(base, tree.folderName + "/" + path))
        case (true, .folder(let root)?):
            location = .file(root.appendingPathComponent(tree.folderName).appendingPathComponent(path))
        default:
            location = .http(url)
        }
        return .success(Resolved(path: path, location: location, tree: tree))
    }

    /// The sprites folder of PokeAPI/sprites, as a URL path.
    package static let repositoryLayout = "/PokeAPI/sprites/master/sprites/"

    /// Where the sprites folder may start in the decoded path of `url`: the repository's
    /// layout, and for a URL on an http `--sprite-source`'s origin, that base's `sprites/`.
    func layoutPrefixes(for url: URL) -> [String] {
        var prefixes = [tree.repositoryLayout]
        if case .http(let base)? = source, Origin(base) == Origin(url) {
            let path = base.path.hasSuffix("/") ? base.path : base.path + "/"
            prefixes.append(path + tree.folderName + "/")
        }
        return prefixes
    }

    /// A `%` not followed by two hex digits, which decoders treat differently.
    static func percentEscapeProblem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        let hex = Set("0123456789abcdefABCDEF".utf8)
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "%") {
            guard index + 2 < bytes.count, hex.contains(bytes[index + 1]), hex.contains(bytes[index + 2]) else {
                return "malformed percent-encoding"
            }
        }
        return nil
    }

    /// Characters that are invisible or reorder text (U+202E RIGHT-TO-LEFT OVERRIDE, zero
    /// widths, line separators): a name with one shows as another name in a listing.
    static func isInvisibleOrBidi(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
        default: return scalar.properties.isBidiControl || scalar.properties.isDefaultIgnorableCodePoint
        }
    }

    /// Why a decoded relative path could leave the tree, or nil when it is safe.
    static func unsafeReason(_ path: Substring) -> String? {
        if path.isEmpty { return "empty path" }
        if path.hasPrefix("/") { return "absolute path" }
        if path.contains("\\") { return "backslash in path" }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            return "NUL or control character in path"
        }
        if let scalar = path.unicodeScalars.first(where: isInvisibleOrBidi) {
            return "invisible, format or bidi character U+\(String(scalar.value, radix: 16, uppercase: true)) in path"
        }
        if path.utf8.count > 1024 { return "path longer than 1024 bytes" }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { return "empty path segment" }
            if segment.utf8.count > 255 { return "path segment longer than 255 bytes" }
            if segment == "." || segment == ".." { return "path escapes the tree (\(segment))" }
            if segment.hasPrefix(".") { return "hidden path segment" }
        }
        return nil
    }

    /// Appends a relative path to a base URL, percent-encoding each segment.
    static func join(_ base: URL, _ relative: String) -> URL {
        var text = base.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
        let encoded = relative.split(separator: "/").map {
            String($0).addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0)
        }.joined(separator: "/")
        return URL(string: text + encoded)!
    }
}

/// Why a sprite URL or body was not taken; reported with the document that named it.
package struct SpriteURLError: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}
