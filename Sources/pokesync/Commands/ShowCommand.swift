import Foundation
import PokeSyncCore
import PokedexReader

/// `pokesync show NAME|ID [--bundle PATH] [--language L] [--json]`: the detail page an
/// app shows, as a card in the terminal or as JSON.
struct ShowCommand {
    static let bundle = OptionSpec.option("bundle", "PATH")
    static let language = OptionSpec.option("language", "L")
    /// `pokesync help show`.
    static let spec = CommandSpec(name: "show", positionals: "NAME|ID", positionalCount: 1...1,
                                  usage: [.optional(bundle), .optional(language), .optional(.json), .optional(.mirror)],
                                  sections: [.text("""
        The detail an app shows: types, size, base stats as bars, abilities, moves, sprites,
        genus and flavor text, the damage each attacking type does to it, and the evolution
        chain as a tree; names of the pokemon, its types, abilities, moves and stats, the
        genus and texts in L (an API code: fr, ko, ja-hrkt, zh-hant), else English. NAME is a
        pokemon's name, or a species' name (its default pokemon). PATH is an installed device
        folder, a .tar.gz bundle (only its manifest and database are extracted, to a temporary
        folder) or a bundles folder (its index must name a file in it); the default is the full
        bundle the mirror's (--mirror DIR) bundles/index.json names. --json prints one object (id, name, types, height,
        weight, stats, abilities, moves, sprites, genus, flavor_text, evolution_chain,
        type_defense: attacking type to factor, and localized_name, type_names, ability_names,
        move_names, stat_names in L), base_experience and is_default, and the species' columns
        in species_facts (id, name, generation, evolution_chain_id, is_baby, is_legendary,
        is_mythical, color, habitat, gender_rate, capture_rate).
        Exit 65 when the database lacks a table or column, or holds a value of the wrong type.
        Exit 64 when nothing has that name or id.
        """)])

    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, command: Self.spec)
        try arguments.expectPositionals(Self.spec)
    }

    func execute() throws -> ExitStatus {
        let languages = (arguments[Self.language].map { [$0.lowercased()] } ?? []) + ["en"]
        let opened = try OpenedPokedex(bundle: arguments[Self.bundle], mirror: arguments[.mirror], languages: languages)
        defer { opened.close() }
        do {
            let query = arguments.positionals[0]
            guard let detail = try opened.pokedex.pokemon(nameOrID: query) else {
                throw CommandError.notFound(query: query)
            }
            let defense = try opened.pokedex.typeDefense(pokemonID: detail.id)
            if arguments.has(.json) {
                print(try JSONLine.string(ShowJSON(detail, defense: defense)))
            } else {
                print(PokemonCard(detail: detail, defense: defense, width: 80).render())
            }
            return .success
        } catch {
            throw opened.naming(error)
        }
    }
}
