/// The flavor-text rule (<doc:PokedexReader/DeviceDatabase#Flavor-texts>), for species, ability and move texts.
enum FlavorTextRule {
    /// The game's text as one paragraph (<doc:PokedexReader/DeviceDatabase#Flavor-texts>): a soft hyphen (U+00AD)
    /// that ends a line goes with its line break (the word was split by the game's text
    /// box); a line break or form feed between two CJK characters is removed (Chinese and
    /// Japanese put no space there: "貼在\n一起" is "貼在一起"); any other becomes a space;
    /// runs of spaces become one space, and the ends are trimmed of Unicode White_Space
    /// (U+3000 included: a Japanese text may end in the ideographic space).
    static func clean(_ text: String) -> String {
        // On UTF-8 bytes: every character involved is ASCII but the soft hyphen (C2 AD)
        // and the CJK neighbours, which are decoded only around a break; a build cleans
        // 68,000 species texts and as many ability and move texts.
        var text = text
        return text.withUTF8 { bytes in
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            let space = UInt8(ascii: " ")
            func isLineBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }
            func isBreak(_ byte: UInt8) -> Bool { isLineBreak(byte) || byte == 0x0C }
            var index = 0
            while index < bytes.count {
                var byte = bytes[index]
                if byte == 0xC2, index + 2 < bytes.count, bytes[index + 1] == 0xAD, isLineBreak(bytes[index + 2]) {
                    // A CRLF after the hyphen goes as one line break.
                    index += bytes[index + 2] == 0x0D && index + 3 < bytes.count && bytes[index + 3] == 0x0A ? 4 : 3
                    continue
                }
                if isBreak(byte) {
                    // CRLF is one break; its neighbours are the characters around it.
                    let end = byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A ? index + 2 : index + 1
                    if let before = Self.scalar(endingAt: index, in: bytes), let after = Self.scalar(startingAt: end, in: bytes),
                       Self.isCJK(before), Self.isCJK(after) {
                        index = end
                        continue
                    }
                    index = end
                    byte = space
                } else {
                    index += 1
                }
                if byte == space, output.last == space || output.isEmpty { continue }
                output.append(byte)
            }
            if output.last == space { output.removeLast() }
            return Self.trimmingWhiteSpace(String(decoding: output, as: UTF8.self))
        }
    }

    /// `text` without Unicode White_Space at either end: besides U+0020, tabs and line
    /// breaks, the ideographic space (U+3000), no-break spaces (U+00A0, U+202F) and the
    /// other Zs spaces. Only the ends are looked at.
    static func trimmingWhiteSpace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return text }
        return String(scalars[first...last])
    }

    /// CJK as <doc:PokedexReader/DeviceDatabase#Flavor-texts> has it: Han, Hiragana, Katakana (with U+30FC), CJK symbols and punctuation
    /// (U+3000-U+303F), half- and full-width forms (U+FF00-U+FFEF).
    static func isCJK(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x3000...0x303F, 0x3040...0x309F, 0x30A0...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF,
             0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF00...0xFFEF, 0x20000...0x2FA1F: return true
        default: return false
        }
    }

    /// The scalar whose UTF-8 bytes end just before `end`, if any.
    static func scalar(endingAt end: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var start = end - 1
        while start >= 0, start > end - 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return start >= 0 ? scalar(startingAt: start, in: bytes) : nil
    }

    /// The scalar whose UTF-8 bytes start at `start`, if any.
    static func scalar(startingAt start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard start < bytes.count else { return nil }
        let lead = bytes[start]
        let (length, initial): (Int, UInt32) = lead < 0x80 ? (1, UInt32(lead)) : lead < 0xE0 ? (2, UInt32(lead & 0x1F))
            : lead < 0xF0 ? (3, UInt32(lead & 0x0F)) : (4, UInt32(lead & 0x07))
        guard start + length <= bytes.count else { return nil }
        var value = initial
        for offset in 1..<max(length, 1) where length > 1 { value = value << 6 | UInt32(bytes[start + offset] & 0x3F) }
        return value
    }
}
