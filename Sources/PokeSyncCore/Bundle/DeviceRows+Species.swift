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
        var output = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func isLineBreak(_ scalar: Unicode.Scalar) -> Bool { scalar == "\n" || scalar == "\r" }
        while index < scalars.count {
            var scalar = scalars[index]
            if scalar == "\u{00AD}", index + 1 < scalars.count, isLineBreak(scalars[index + 1]) {
                index += 2
                // A CRLF after the hyphen goes as one line break.
                if scalars[index - 1] == "\r", index < scalars.count, scalars[index] == "\n" { index += 1 }
                continue
            }
            if isLineBreak(scalar) || scalar == "\u{0C}" { scalar = " " }
            if scalar == " ", output.last == " " || output.isEmpty {
                index += 1
                continue
            }
            output.append(scalar)
            index += 1
        }
        if output.last == " " { output.removeLast() }
        return String(output)
    }
}
