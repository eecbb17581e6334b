import PokedexReader

// BundleProfile itself lives in PokedexReader (devices compare profiles too); what only
// the exporter needs, parsing the command line and the sprite set, is here.
extension BundleProfile {
    /// The profile's sprite set.
    /// - Throws: `RequestError` when `sprites` is not a set `--sprites` takes.
    package func spriteSet() throws -> SpriteSet { try SpriteSet(parsing: sprites) }

    /// A profile whose sprite set is spelled canonically (``SpriteSet/canonical``).
    /// - Throws: `RequestError` (64) when `sprites` is not a set `--sprites` takes.
    package static func canonical(sprites: String, languages: [String]?) throws -> BundleProfile {
        BundleProfile(sprites: try SpriteSet(parsing: sprites).canonical.description, languages: languages)
    }

    /// Parses `--languages`: `all`, or a comma list of API language codes (any case).
    /// Whether the codes exist is checked against a version by the builder.
    /// - Throws: `RequestError` for an empty list or a code that is not a language code.
    package static func parseLanguages(_ text: String) throws -> [String]? {
        if text.lowercased() == "all" { return nil }
        let codes = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
        guard !codes.isEmpty, codes.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed.contains) }) else {
            throw RequestError.invalidLanguageList(text)
        }
        return codes
    }
}
