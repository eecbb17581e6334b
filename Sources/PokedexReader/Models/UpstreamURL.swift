import Foundation

/// A sprite's upstream URL as the database stores it, made a `URL`.
enum UpstreamURL {
    /// The URL of `text`; characters `URL` refuses (a space, say) percent-encoded first.
    /// Nil only for text that is no URL even so: pokesync's exporter writes none.
    static func make(_ text: String) -> URL? {
        if let url = URL(string: text) { return url }
        // `%` stays as it is (already-encoded escapes); every other character URL refuses is encoded.
        let allowed = CharacterSet.urlQueryAllowed.union(CharacterSet(charactersIn: "%#"))
        return text.addingPercentEncoding(withAllowedCharacters: allowed).flatMap { URL(string: $0) }
    }
}
