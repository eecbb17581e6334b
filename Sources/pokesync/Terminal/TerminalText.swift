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
}
