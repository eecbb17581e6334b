import Foundation
import PokeSyncCore
import PokedexReader

/// `pokesync search TERM... [--bundle PATH] [--language L] [--json]`: what an app's search
/// field finds, in rank order (exact, then prefix, then substring; then id), with the
/// species' name in L (English where L has none).
struct SearchCommand {
    static let limit = OptionSpec.option("limit", "N", .atLeast(1))
    /// `pokesync help search`.
    static let spec = CommandSpec(name: "search", positionals: "TERM...", positionalCount: 1...Int.max,
                                  usage: [.optional(ShowCommand.bundle), .optional(limit), .optional(ShowCommand.language),
                                          .optional(.json), .optional(.mirror)],
                                  sections: [.text("""
        PATH is read as `pokesync show` reads it (see `pokesync help show`); the default is the full
        bundle the mirror's (--mirror DIR) bundles/index.json names.

        What an app's search field finds: every term must be part of the pokemon's name, its
        species' name in a language of the bundle, or its types (slugs, and their names in each
        language of the bundle: "eau", "물"); accents and case are ignored. Exact matches
        first, then prefixes, then the rest, each by id. --json prints
        [{"id": 6, "name": "charizard", "types": ["fire", "flying"], "localized_name": "Dracaufeu"}, ...]
        in that order, localized_name in L (else English). No term (or only spaces) is a usage
        error (64).
        """)])

    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, command: Self.spec)
        // No terms, or only spaces, would list everything: a usage error, like a missing argument.
        guard !arguments.positionals.joined().allSatisfy(\.isWhitespace) else {
            throw UsageError("usage: \(Self.spec.synopsis) (give a name, part of one, or an id)")
        }
    }

    func execute() throws -> ExitStatus {
        let languages = (arguments[ShowCommand.language].map { [$0.lowercased()] } ?? []) + ["en"]
        let opened = try OpenedPokedex(bundle: arguments[ShowCommand.bundle], mirror: arguments[.mirror], languages: languages)
        defer { opened.close() }
        do {
            let hits = try opened.pokedex.search(arguments.positionals.joined(separator: " "),
                                                 limit: try arguments.integer(Self.limit))
            if arguments.has(.json) {
                print(try JSONLine.string(hits.map {
                    SearchHitJSON(id: $0.pokemon.id, name: $0.pokemon.name, types: $0.pokemon.types,
                                  localizedName: $0.pokemon.localizedName?.text)
                }))
                return .success
            }
            // The term and the bundle's names are data: their control characters are escaped.
            if hits.isEmpty { print("no pokemon matches \"\(TerminalText.escaped(arguments.positionals.joined(separator: " ")))\"") }
            for hit in hits {
                print(String(format: "%5d  ", hit.pokemon.id) + TerminalText.escaped(hit.pokemon.name).padding(toLength: 28, withPad: " ", startingAt: 0)
                      + TerminalText.escaped(hit.pokemon.types.joined(separator: "/")))
            }
            return .success
        } catch {
            throw opened.naming(error)
        }
    }
}

/// One result of `search --json`, in rank order: id, name and types (<doc:PokedexReader/Reader#Show-and-search-in-a-terminal>), and the
/// species' name in the first language of `--language` (else English), null when none.
struct SearchHitJSON: Encodable {
    var id: Int
    var name: String
    var types: [String]
    var localizedName: String?

    enum CodingKeys: String, CodingKey { case id, name, types, localizedName = "localized_name" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(types, forKey: .types)
        try container.encode(localizedName, forKey: .localizedName)
    }
}
