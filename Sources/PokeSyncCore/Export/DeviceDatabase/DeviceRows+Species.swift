import Foundation
import PokeSQLite

extension DeviceRow {
    /// A row of `species`.
    struct Species: DeviceTableRow {
        var id: Int
        var name: String
        var generation: String?
        var evolutionChainID: Int?
        var evolvesFromSpeciesID: Int?
        var isBaby: Bool
        var isLegendary: Bool
        var isMythical: Bool
        var color: String?
        var habitat: String?
        var genderRate: Int?
        var captureRate: Int?
    }

    /// A row of `species_name`: a language's name, genus, or both.
    struct SpeciesName: LocalizedDeviceRow {
        var speciesID: Int
        var language: String
        var name: String?
        var genus: String?
    }

    /// A row of `species_flavor_text` (a view over `species_flavor_link` and `flavor_text_body`).
    struct SpeciesFlavorText: LocalizedDeviceRow {
        var speciesID: Int
        var language: String
        var version: String
        /// The entry's position in the document's list (game order).
        var entryIndex: Int
        /// Cleaned by `FlavorTextRule.clean`.
        var text: String
    }
}

extension DeviceRows {
    /// The rows of one species document: `species`, `species_name`, `species_flavor_text`.
    ///
    /// `species_name` has a row for every language with a name or a genus: a language
    /// with a genus but no name (none in the 2026 data) gets a NULL name rather than
    /// losing its genus. Every language is kept here; the profile's filter comes later.
    static func species(_ document: SpeciesDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = document.id
        rows.species = [DeviceRow.Species(id: id, name: document.name, generation: document.generation?.name,
                                          evolutionChainID: document.evolution_chain?.id,
                                          evolvesFromSpeciesID: document.evolves_from_species?.id,
                                          isBaby: document.is_baby, isLegendary: document.is_legendary,
                                          isMythical: document.is_mythical, color: document.color?.name,
                                          habitat: document.habitat?.name, genderRate: document.gender_rate,
                                          captureRate: document.capture_rate)]
        var names: [String: String] = [:]
        for entry in document.names where names[entry.language.name] == nil { names[entry.language.name] = entry.name }
        var genera: [String: String] = [:]
        for entry in document.genera where genera[entry.language.name] == nil { genera[entry.language.name] = entry.genus }
        rows.speciesNames = Set(names.keys).union(genera.keys).sorted().map { language in
            DeviceRow.SpeciesName(speciesID: id, language: language, name: names[language], genus: genera[language])
        }
        var texts = KeyedRows<FlavorKey, DeviceRow.SpeciesFlavorText>()
        for (index, entry) in document.flavor_text_entries.enumerated() {
            guard let version = entry.version?.name else { continue }
            texts.add(FlavorKey(language: entry.language.name, version: version),
                      DeviceRow.SpeciesFlavorText(speciesID: id, language: entry.language.name, version: version,
                                                  entryIndex: index, text: FlavorTextRule.clean(entry.flavor_text)))
        }
        rows.speciesFlavorTexts = texts.sorted
        return rows
    }

    private struct FlavorKey: Hashable, Comparable {
        var language: String
        var version: String
        static func < (lhs: FlavorKey, rhs: FlavorKey) -> Bool {
            (lhs.language, lhs.version) < (rhs.language, rhs.version)
        }
    }
}
