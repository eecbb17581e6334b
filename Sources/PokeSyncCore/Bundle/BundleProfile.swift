import Foundation

/// What a bundle holds of a version: which sprites (`--sprites`) and which languages
/// (`--languages`). Deltas are only made between bundles of one profile, so its JSON
/// form (``json``) is written to the manifest, the index and the database's `meta`.
public struct BundleProfile: Sendable, Equatable {
    /// The sprites that go in the bundle (and get a `path` in `pokemon_sprite`).
    public var sprites: SpriteSet
    /// The kept languages as sorted lowercase codes, `en` always among them; nil keeps all.
    public var languages: [String]?

    /// A profile; `languages` is normalized: lowercased, `en` added, sorted, duplicates dropped.
    public init(sprites: SpriteSet = .defaults, languages: [String]? = nil) {
        self.sprites = sprites
        self.languages = languages.map { codes in
            Array(Set(codes.map { $0.lowercased() } + ["en"])).sorted()
        }
    }

    /// Parses `--languages`: `all`, or a comma list of API language codes (any case).
    /// Whether the codes exist is checked against a version by the builder.
    /// - Throws: `UsageError` for an empty list or a code that is not a language code.
    public static func parseLanguages(_ text: String) throws -> [String]? {
        if text.lowercased() == "all" { return nil }
        let codes = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
        guard !codes.isEmpty, codes.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed.contains) }) else {
            throw UsageError("--languages takes all or a comma list of language codes such as en,ko,ja-hrkt (got \"\(text)\")")
        }
        return codes
    }

    /// Whether rows in `language` (an API code, any case) are kept.
    public func keeps(language: String) -> Bool {
        guard let languages else { return true }
        return languages.contains(language.lowercased())
    }

    /// `{"languages":[...]|"all","sprites":"..."}`: keys sorted, minified, so equal
    /// profiles give equal text.
    public var json: String {
        let languages = self.languages.map { "[" + $0.map(Self.quoted).joined(separator: ",") + "]" } ?? "\"all\""
        return "{\"languages\":\(languages),\"sprites\":\(Self.quoted(sprites.description))}"
    }

    private static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
