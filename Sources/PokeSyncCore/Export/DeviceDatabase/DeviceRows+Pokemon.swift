import Foundation
import PokeSQLite

extension DeviceRows {
    /// The rows of one pokemon document: `pokemon`, `pokemon_type`, `pokemon_stat`,
    /// `pokemon_ability`, `pokemon_move` and `pokemon_sprite`.
    /// - Parameters:
    ///   - sprites: the document's non-null sprite URLs by key, as the store recorded them.
    ///   - spritePath: the bundle path (`sprites/...`) of a sprite that goes in the bundle, else nil.
    static func pokemon(_ document: PokemonDocument, sprites: [SpriteReference],
                        spritePath: (SpriteReference) -> String?) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("pokemon", [id, .text(document.name), SQLValue(document.species.id), SQLValue(document.height),
                                SQLValue(document.weight), SQLValue(document.base_experience),
                                SQLValue(document.is_default), SQLValue(document.order)])
        var types = KeyedRows<Int>()
        for entry in document.types { types.add(entry.slot, [id, SQLValue(entry.slot), .text(entry.type.name)]) }
        var stats = KeyedRows<String>()
        for entry in document.stats {
            stats.add(entry.stat.name, [id, .text(entry.stat.name), SQLValue(entry.base_stat), SQLValue(entry.effort)])
        }
        var abilities = KeyedRows<Int>()
        for entry in document.abilities {
            abilities.add(entry.slot, [id, SQLValue(entry.slot), .text(entry.ability.name), SQLValue(entry.is_hidden)])
        }
        var moves = KeyedRows<String>()
        for entry in document.moves { moves.add(entry.move.name, [id, .text(entry.move.name)]) }
        var spriteRows = KeyedRows<String>()
        for sprite in sprites {
            spriteRows.add(sprite.key, [id, .text(sprite.key), .text(sprite.url), SQLValue(spritePath(sprite))])
        }
        for (table, keyed) in [("pokemon_type", types.sorted), ("pokemon_ability", abilities.sorted)] {
            for row in keyed { rows.append(table, row) }
        }
        for (table, keyed) in [("pokemon_stat", stats.sorted), ("pokemon_move", moves.sorted),
                               ("pokemon_sprite", spriteRows.sorted)] {
            for row in keyed { rows.append(table, row) }
        }
        return rows
    }
}
