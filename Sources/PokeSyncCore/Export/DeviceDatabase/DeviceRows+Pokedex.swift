import Foundation
import PokeSQLite

extension DeviceRow {
    /// A row of `pokedex`.
    struct Pokedex: DeviceTableRow {
        var id: Int
        var name: String
        var region: String?
        var isMainSeries: Bool
    }

    /// A row of `pokedex_entry`.
    struct PokedexEntry: DeviceTableRow {
        var pokedexID: Int
        var entryNumber: Int
        /// From the species link's URL; nil when the link has none (a dangling reference).
        var speciesID: Int?
    }

    /// A row of `pokedex_description`.
    struct PokedexDescription: LocalizedDeviceRow {
        var pokedexID: Int
        var language: String
        var description: String
    }
}

extension DeviceRows {
    /// The rows of one pokedex document: `pokedex`, `pokedex_entry`, `pokedex_description`.
    static func pokedex(_ document: PokedexDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = document.id
        rows.pokedexes = [DeviceRow.Pokedex(id: id, name: document.name, region: document.region?.name,
                                            isMainSeries: document.is_main_series)]
        var entries = KeyedRows<Int, DeviceRow.PokedexEntry>()
        for entry in document.pokemon_entries {
            entries.add(entry.entry_number, DeviceRow.PokedexEntry(pokedexID: id, entryNumber: entry.entry_number,
                                                                   speciesID: entry.pokemon_species.id))
        }
        rows.pokedexEntries = entries.sorted
        var descriptions = KeyedRows<String, DeviceRow.PokedexDescription>()
        for entry in document.descriptions {
            descriptions.add(entry.language.name, DeviceRow.PokedexDescription(pokedexID: id, language: entry.language.name,
                                                                               description: entry.description))
        }
        rows.pokedexDescriptions = descriptions.sorted
        return rows
    }
}
