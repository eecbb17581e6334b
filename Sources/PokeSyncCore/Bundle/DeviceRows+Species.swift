import Foundation
import PokeSQLite

extension DeviceRows {
    /// The rows of one species document: `species`, `species_name`, `species_flavor_text`.
    ///
    /// `species_name` has a row for every language with a name or a genus: a language
    /// with a genus but no name (none in the 2026 data) gets a NULL name rather than
    /// losing its genus. Every language is kept here; the profile's filter comes later.
    static func species(_ document: SpeciesDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("species", [id, .text(document.name), SQLValue(document.generation?.name),
                                SQLValue(document.evolution_chain?.id), SQLValue(document.evolves_from_species?.id),
                                SQLValue(document.is_baby), SQLValue(document.is_legendary),
                                SQLValue(document.is_mythical), SQLValue(document.color?.name),
                                SQLValue(document.habitat?.name), SQLValue(document.gender_rate),
                                SQLValue(document.capture_rate)])
        var names: [String: String] = [:]
        for entry in document.names where names[entry.language.name] == nil { names[entry.language.name] = entry.name }
        var genera: [String: String] = [:]
        for entry in document.genera where genera[entry.language.name] == nil { genera[entry.language.name] = entry.genus }
        for language in Set(names.keys).union(genera.keys).sorted() {
            rows.append("species_name", [id, .text(language), SQLValue(names[language]), SQLValue(genera[language])])
        }
        var texts = KeyedRows<FlavorKey>()
        for (index, entry) in document.flavor_text_entries.enumerated() {
            guard let version = entry.version?.name else { continue }
            texts.add(FlavorKey(language: entry.language.name, version: version),
                      [id, .text(entry.language.name), .text(version), SQLValue(index),
                       .text(cleanFlavorText(entry.flavor_text))])
        }
        for row in texts.sorted { rows.append("species_flavor_text", row) }
        return rows
    }

    private struct FlavorKey: Hashable, Comparable {
        var language: String
        var version: String
        static func < (lhs: FlavorKey, rhs: FlavorKey) -> Bool {
            (lhs.language, lhs.version) < (rhs.language, rhs.version)
        }
    }

    /// The game's text as one paragraph: a soft hyphen (U+00AD) that ends a line goes with
    /// its line break (the word was split by the game's text box), form feeds and line
    /// breaks become spaces, runs of spaces one space, and the ends are trimmed.
    static func cleanFlavorText(_ text: String) -> String {
        // On UTF-8 bytes: every character involved is ASCII but the soft hyphen (C2 AD),
        // and a build cleans 68,000 texts.
        var text = text
        return text.withUTF8 { bytes in
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            let space = UInt8(ascii: " ")
            func isLineBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }
            var index = 0
            while index < bytes.count {
                var byte = bytes[index]
                if byte == 0xC2, index + 2 < bytes.count, bytes[index + 1] == 0xAD, isLineBreak(bytes[index + 2]) {
                    // A CRLF after the hyphen goes as one line break.
                    index += bytes[index + 2] == 0x0D && index + 3 < bytes.count && bytes[index + 3] == 0x0A ? 4 : 3
                    continue
                }
                if isLineBreak(byte) || byte == 0x0C { byte = space }
                index += 1
                if byte == space, output.last == space || output.isEmpty { continue }
                output.append(byte)
            }
            if output.last == space { output.removeLast() }
            return String(decoding: output, as: UTF8.self)
        }
    }
}
