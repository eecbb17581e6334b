import Foundation
import PokeSQLite

extension Pokedex {
    /// The languages of the bundle (those its species names are in), each with its name
    /// in the first of `languages` the data has, else English, and in itself: for a
    /// language picker. In code order.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when a query fails.
    public func bundleLanguages(languages: [String] = PreferredLanguages.system) throws -> [BundleLanguage] {
        try read { database in
            let codes = try database.rows("SELECT DISTINCT language FROM species_name ORDER BY language", []) { $0.text(0) }
            let names = try database.rows("""
                SELECT l.name, n.in_language, n.name FROM language l JOIN language_name n ON n.language_id = l.id
                """, []) { ($0.text(0), LocalizedText(text: $0.text(2), language: $0.text(1))) }
            let byCode = Dictionary(grouping: names, by: \.0).mapValues { $0.map(\.1) }
            return codes.map { code in
                let texts = byCode[code] ?? []
                return BundleLanguage(code: code, localizedName: Self.choose(texts, languages),
                                      nativeName: texts.first { $0.language == code }?.text)
            }
        }
    }
}
