import Foundation
import PokeSQLite

extension DeviceRow {
    /// A row of `pokemon`.
    struct Pokemon: DeviceTableRow {
        var id: Int
        var name: String
        /// From the species link's URL; nil when the link has none (a dangling reference).
        var speciesID: Int?
        var height: Int?
        var weight: Int?
        var baseExperience: Int?
        var isDefault: Bool
        var sortOrder: Int?
    }

    /// A row of `pokemon_type`.
    struct PokemonType: DeviceTableRow {
        var pokemonID: Int
        var slot: Int
        var type: String
    }

    /// A row of `pokemon_stat`.
    struct PokemonStat: DeviceTableRow {
        var pokemonID: Int
        var stat: String
        var baseStat: Int
        var effort: Int
    }

    /// A row of `pokemon_ability`.
    struct PokemonAbility: DeviceTableRow {
        var pokemonID: Int
        var slot: Int
        var ability: String
        var isHidden: Bool
    }

    /// A row of `pokemon_move` (a view: the writer stores it through `pokemon_move_link`).
    struct PokemonMove: DeviceTableRow {
        var pokemonID: Int
        var move: String
    }

    /// A row of `pokemon_sprite` (a view over `pokemon_sprite_link`).
    struct PokemonSprite: DeviceTableRow {
        var pokemonID: Int
        var key: String
        var url: String
        /// The bundle path (`sprites/...`) of a sprite that goes in the bundle, else nil.
        var path: String?
    }
}

extension DeviceRows {
    /// The rows of one pokemon document: `pokemon`, `pokemon_type`, `pokemon_stat`,
    /// `pokemon_ability`, `pokemon_move` and `pokemon_sprite`.
    /// - Parameters:
    ///   - sprites: the document's non-null sprite URLs by key, as the store recorded them.
    ///   - spritePath: the bundle path (`sprites/...`) of a sprite that goes in the bundle, else nil.
    static func pokemon(_ document: PokemonDocument, sprites: [SpriteReference],
                        spritePath: (SpriteReference) -> String?) -> DeviceRows {
        var rows = DeviceRows()
        let id = document.id
        rows.pokemon = [DeviceRow.Pokemon(id: id, name: document.name, speciesID: document.species.id,
                                          height: document.height, weight: document.weight,
                                          baseExperience: document.base_experience, isDefault: document.is_default,
                                          sortOrder: document.order)]
        var types = KeyedRows<Int, DeviceRow.PokemonType>()
        for entry in document.types {
            types.add(entry.slot, DeviceRow.PokemonType(pokemonID: id, slot: entry.slot, type: entry.type.name))
        }
        rows.pokemonTypes = types.sorted
        var stats = KeyedRows<String, DeviceRow.PokemonStat>()
        for entry in document.stats {
            stats.add(entry.stat.name, DeviceRow.PokemonStat(pokemonID: id, stat: entry.stat.name,
                                                             baseStat: entry.base_stat, effort: entry.effort))
        }
        rows.pokemonStats = stats.sorted
        var abilities = KeyedRows<Int, DeviceRow.PokemonAbility>()
        for entry in document.abilities {
            abilities.add(entry.slot, DeviceRow.PokemonAbility(pokemonID: id, slot: entry.slot,
                                                               ability: entry.ability.name, isHidden: entry.is_hidden))
        }
        rows.pokemonAbilities = abilities.sorted
        var moves = KeyedRows<String, DeviceRow.PokemonMove>()
        for entry in document.moves { moves.add(entry.move.name, DeviceRow.PokemonMove(pokemonID: id, move: entry.move.name)) }
        rows.pokemonMoves = moves.sorted
        var spriteRows = KeyedRows<String, DeviceRow.PokemonSprite>()
        for sprite in sprites {
            spriteRows.add(sprite.key, DeviceRow.PokemonSprite(pokemonID: id, key: sprite.key, url: sprite.url,
                                                               path: spritePath(sprite)))
        }
        rows.pokemonSprites = spriteRows.sorted
        return rows
    }
}
