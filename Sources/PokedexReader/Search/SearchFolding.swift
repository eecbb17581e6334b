import Foundation

/// The folding search uses (<doc:PokedexReader/Reader#Search>), applied alike to what the builder stores and to
/// what a user types: Unicode NFKD, the combining marks U+0300-U+036F dropped (only
/// those: Japanese voicing marks stay, so ピ, ビ and ヒ stay apart), full case folding
/// (`ß` is `ss`), and `’` as `'`.
package enum SearchFolding {
    /// Folds `text` for matching: `"Flabébé"` is `"flabebe"`, `"Straße"` is `"strasse"`.
    package static func fold(_ text: String) -> String {
        foldedASCII(text) ?? foldedByUnicode(text)
    }

    /// `text` folded without Foundation when it is all ASCII, else nil. For ASCII the
    /// decomposition changes nothing and full case folding is lowercasing A-Z, so this is
    /// what ``fold(_:)``'s general path gives (a test holds them equal over every name in
    /// the samples); it keeps the typed query and the ASCII names off Foundation's
    /// Unicode normalization, whose code and tables an ASCII-only reader need not load.
    private static func foldedASCII(_ text: String) -> String? {
        var bytes = Array(text.utf8)
        for index in bytes.indices {
            let byte = bytes[index]
            if byte >= 0x80 { return nil }
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { bytes[index] = byte + 0x20 }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The general path of ``fold(_:)``, for a test to compare ``fold(_:)`` with.
    package static func foldedByUnicode(_ text: String) -> String {
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
