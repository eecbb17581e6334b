/// Text from data (a bundle's names, a search term, a file name in an error) made safe
/// for a terminal: a control character (ESC, BEL, CR, a newline, DEL, the C1 range)
/// would otherwise move the cursor, retitle the window or fake a line of output.
enum TerminalText {
    /// `text` with every control character written as a visible escape: `\e`, `\n`,
    /// `\r`, `\t`, else `\u{XX}`. Everything else, including non-ASCII letters, is kept.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else { result.unicodeScalars.append(scalar); continue }
            switch scalar {
            case "\u{1B}": result += "\\e"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// C0 (U+0000-U+001F), DEL and C1 (U+0080-U+009F): all the terminal may act on.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `text` cut or padded with spaces to exactly `width` terminal columns: a CJK or
    /// Hangul character takes two (`공격` is four columns wide), so a column of localized
    /// names lines up; a longer name is cut, as `String.padding` cut it.
    static func padded(_ text: String, toColumns width: Int) -> String {
        var kept = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            let wide = columns(scalar)
            if used + wide > width { break }
            kept.append(scalar)
            used += wide
        }
        return String(kept) + String(repeating: " ", count: width - used)
    }

    /// Terminal columns of one scalar: 0 for a combining mark, 2 for East Asian wide and
    /// full-width ranges, else 1.
    static func columns(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.value {
        case 0x0300...0x036F, 0x200B...0x200F: return 0
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x20000...0x3FFFD: return 2
        default: return 1
        }
    }
}
