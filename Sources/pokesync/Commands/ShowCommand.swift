import Foundation
import PokeSyncCore
import PokedexReader

/// `pokesync show NAME|ID [--bundle PATH] [--language L] [--json]`: the detail page an
/// app shows, as a card in the terminal or as JSON.
struct ShowCommand {
    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, options: ["bundle", "mirror", "language"], flags: ["json"])
        try arguments.expectPositionals(1...1, usage: "pokesync show NAME|ID [--bundle PATH] [--language L] [--json]")
    }

    func execute() throws -> ExitStatus {
        let opened = try OpenedPokedex(bundle: arguments.options["bundle"], mirror: arguments.options["mirror"])
        defer { opened.close() }
        do {
            let languages = (arguments.options["language"].map { [$0.lowercased()] } ?? []) + ["en"]
            let query = arguments.positionals[0]
            guard let detail = try opened.pokedex.pokemon(nameOrID: query, languages: languages) else {
                throw NotFound(query: query)
            }
            if arguments.flags.contains("json") {
                let data = try JSONSerialization.data(withJSONObject: Self.json(detail), options: [.sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(PokemonCard(detail: detail, width: 80).render())
            }
            return .success
        } catch {
            throw opened.naming(error)
        }
    }

    /// DESIGN's `show --json`: id, name, types, height, weight, stats, abilities, moves,
    /// sprites (key to bundled path or null), genus, flavor_text, evolution_chain.
    static func json(_ detail: PokemonDetail) -> [String: Any] {
        var sprites: [String: Any] = [:]
        for sprite in detail.sprites { sprites[sprite.key] = sprite.path ?? NSNull() }
        return [
            "id": detail.id, "name": detail.name, "types": detail.types, "height": detail.height, "weight": detail.weight,
            "stats": detail.baseStats,
            "abilities": detail.abilities.map { ["name": $0.name, "slot": $0.slot, "is_hidden": $0.isHidden] },
            "moves": detail.moves, "sprites": sprites,
            "species": detail.species?.name ?? NSNull(),
            "genus": detail.species?.genus.map { ["text": $0.text, "language": $0.language] } ?? NSNull(),
            "flavor_text": detail.species?.flavorText.map {
                ["text": $0.text, "language": $0.language, "version": $0.version] as [String: Any]
            } ?? NSNull(),
            "evolution_chain": detail.species?.evolutionChain.map(chainJSON) ?? NSNull(),
        ]
    }

    static func chainJSON(_ node: EvolutionNode) -> [String: Any] {
        [
            "species_id": node.speciesID, "species": node.speciesName ?? NSNull(),
            "pokemon_id": node.defaultPokemonID ?? NSNull(), "pokemon": node.defaultPokemonName ?? NSNull(),
            "trigger": node.trigger ?? NSNull(), "min_level": node.minLevel ?? NSNull(), "item": node.item ?? NSNull(),
            "evolves_to": node.children.map(chainJSON),
        ]
    }
}

/// `show` found no pokemon or species by that name or id: a usage error (64), as a
/// misspelt argument is.
struct NotFound: PokeSyncFailure {
    var query: String
    var exitStatus: ExitStatus { .usage }
    var description: String { "no pokemon or species named \"\(query)\" in this bundle (try `pokesync search \(query)`)" }
}
