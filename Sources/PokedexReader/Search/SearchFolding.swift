import Foundation

/// The folding search uses (<doc:PokedexReader/Reader#Search>), applied alike to what the builder stores and to
/// what a user types: Unicode NFKD, the combining marks U+0300-U+036F dropped (only
/// those: Japanese voicing marks stay, so ピ, ビ and ヒ stay apart), full case folding
/// (`ß` is `ss`), and `’` as `'`.
package enum SearchFolding {
    /// Folds `text` for matching: `"Flabébé"` is `"flabebe"`, `"Straße"` is `"strasse"`.
    package static func fold(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if (0x300...0x36F).contains(scalar.value) { continue }
            appendCaseFolded(scalar, to: &folded)
        }
        return String(folded)
    }

    /// Splits what a user typed into folded terms (by whitespace); empty terms are dropped.
    package static func terms(_ query: String) -> [String] {
        fold(query).split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    /// Full case folding of one scalar. Swift exposes the lowercase mapping; full folding
    /// differs from it only where folding expands or merges letters (`ß`, final sigma).
    /// The compatibility decomposition before this has already merged the symbol
    /// variants (`ſ`, `ϐ`, ligatures).
    private static func appendCaseFolded(_ scalar: Unicode.Scalar, to output: inout String.UnicodeScalarView) {
        switch scalar.value {
        case 0x2019: output.append("'")                      // ’ RIGHT SINGLE QUOTATION MARK
        case 0x00DF, 0x1E9E: output.append(contentsOf: "ss".unicodeScalars) // ß, ẞ
        case 0x03C2: output.append("\u{03C3}")              // ς final sigma folds to σ
        default:
            if scalar.properties.changesWhenLowercased {
                output.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            } else {
                output.append(scalar)
            }
        }
    }
}
