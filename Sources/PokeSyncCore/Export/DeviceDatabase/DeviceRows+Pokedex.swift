import Foundation
import PokeSQLite

extension DeviceRows {
    /// The rows of one pokedex document: `pokedex`, `pokedex_entry`, `pokedex_description`.
    static func pokedex(_ document: PokedexDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("pokedex", [id, .text(document.name), SQLValue(document.region?.name),
                                SQLValue(document.is_main_series)])
        var entries = KeyedRows<Int>()
        for entry in document.pokemon_entries {
            entries.add(entry.entry_number, [id, SQLValue(entry.entry_number), SQLValue(entry.pokemon_species.id)])
        }
        for row in entries.sorted { rows.append("pokedex_entry", row) }
        var descriptions = KeyedRows<String>()
        for entry in document.descriptions {
            descriptions.add(entry.language.name, [id, .text(entry.language.name), .text(entry.description)])
        }
        for row in descriptions.sorted { rows.append("pokedex_description", row) }
        return rows
    }
}
