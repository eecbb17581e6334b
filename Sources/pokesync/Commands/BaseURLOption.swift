import Foundation

/// `--base-url` (export's and serve's) and `--sprite-base`: the origin and path written in
/// front of every `/api/v2/...` (or `/sprites/...`) URL.
enum BaseURLOption {
    /// An http(s) URL with a host, no query or fragment, and nothing that would need
    /// escaping in JSON or a header; returned without trailing slashes.
    static func parse(_ text: String, option: String) throws -> String {
        var url = text
        while url.hasSuffix("/") { url.removeLast() }
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
              let parsed = URL(string: url), parsed.host?.isEmpty == false, parsed.query == nil, parsed.fragment == nil,
              !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F || "\"\\<>".unicodeScalars.contains($0) }) else {
            throw UsageError("--\(option) takes an http:// or https:// URL without query or fragment, e.g. https://pokeapi.example.org (got \"\(text)\")")
        }
        return url
    }
}
