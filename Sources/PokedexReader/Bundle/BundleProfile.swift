/// What a bundle holds of a version: which sprites and which languages.
///
/// Encoded as <doc:PokeSyncCore/Bundles#The-profile> fixes it, `{"languages": "all" | ["en", "ko"], "sprites": "default"}`,
/// in the manifest, the index and the database's `meta`. Deltas are made only between
/// bundles of one profile, and a device of another profile takes the full bundle.
package struct BundleProfile: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The sprite set: `none`, `default`, `artwork`, `all`, or a comma list of paths.
    package var sprites: String
    /// Sorted lowercase language codes, or nil for every language of the version.
    package var languages: [String]?

    /// - Parameter languages: any case and order; stored sorted, lowercased and unique,
    ///   with `en` added (it is always kept, as the fallback).
    package init(sprites: String = "default", languages: [String]? = nil) {
        self.sprites = sprites
        self.languages = languages.map { Array(Set($0.map { $0.lowercased() } + ["en"])).sorted() }
    }

    enum CodingKeys: String, CodingKey { case sprites, languages }

    package init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        sprites = try values.decode(String.self, forKey: .sprites)
        if let all = try? values.decode(String.self, forKey: .languages) {
            guard all == "all" else {
                throw DecodingError.dataCorruptedError(forKey: .languages, in: values,
                                                       debugDescription: "languages is \"all\" or a list of codes")
            }
            languages = nil
        } else {
            languages = try values.decode([String].self, forKey: .languages)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(sprites, forKey: .sprites)
        if let languages { try values.encode(languages, forKey: .languages) } else { try values.encode("all", forKey: .languages) }
    }

    /// Whether a row in `language` (an API code, any case) belongs in the bundle.
    package func keeps(language: String) -> Bool {
        guard let languages else { return true }
        return languages.contains(language.lowercased())
    }

    /// The compact JSON stored in `meta.profile`: `{"languages":"all","sprites":"default"}`.
    package var json: String {
        let languagesJSON = languages.map { "[" + $0.map(Self.quoted).joined(separator: ",") + "]" } ?? "\"all\""
        return "{\"languages\":\(languagesJSON),\"sprites\":\(Self.quoted(sprites))}"
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

    package var description: String { json }
}
