import Foundation
import PokeSQLite

extension Pokedex {
    /// The languages of the bundle (those its species names are in), each with its name
    /// in the first of `languages` the data has, else English (nil: the `Pokedex`'s), and
    /// in itself: for a language picker. In code order.
    /// - Throws: ``PokedexError`` when a query fails or a value cannot be read.
    public func bundleLanguages(languages: [String]? = nil) throws -> [BundleLanguage] {
        let languages = languages ?? self.languages
        return try read { database in
            let codes = try database.records(Self.speciesNameLanguages) { try $0.text("language") }
            var byCode: [String: [LocalizedText]] = [:]
            _ = try database.records(Self.languageNames) { row in
                byCode[try row.text("code"), default: []].append(LocalizedText(text: try row.text("name"), language: try row.text("in_language")))
            }
            return codes.map { code in
                let texts = byCode[code] ?? []
                return BundleLanguage(code: code, localizedName: Self.choose(texts, languages),
                                      nativeName: texts.first { $0.language == code }?.text)
            }
        }
    }

    static let speciesNameLanguages = ReadQuery(.speciesName, ["language"], "GROUP BY language ORDER BY language")
    static let languageNames = ReadQuery(.languageName, as: "n", ["in_language", "name"],
                                         also: [.column(.language, alias: "l", "name", as: "code")],
                                         "FROM language l JOIN language_name n ON n.language_id = l.id")
}
