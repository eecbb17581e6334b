import Foundation

/// One species of an evolution chain, with what it evolves into.
public struct EvolutionNode: Sendable, Hashable, Codable, Identifiable {
    /// The species id.
    public let speciesID: Int
    /// The species' slug; nil only when the database lacks the species.
    public let speciesName: String?
    /// The species' name in the chosen language (else English).
    public let localizedName: LocalizedText?
    /// The species' default pokemon: where tapping the node leads
    /// (``Pokedex/pokemon(id:languages:)``). Nil when the database has none.
    public let defaultPokemonID: Int?
    /// The default pokemon's name.
    public let defaultPokemonName: String?
    /// How it evolves from its parent (`level-up`, `use-item`, `trade`); nil at the root.
    public let trigger: String?
    /// The level it evolves at, when a level is the condition.
    public let minLevel: Int?
    /// The item that makes it evolve (`thunder-stone`).
    public let item: String?
    /// Every condition, as the API's `evolution_details` (canonical JSON); nil at the root.
    public let detailsJSON: String?
    /// Every way this species evolves from its parent (eevee's espeon: friendship 160 by
    /// day), read from ``detailsJSON`` when the chain is read; empty at the root.
    public let conditions: [EvolutionCondition]
    /// What it evolves into (eevee has eight), by species id.
    public let children: [EvolutionNode]

    /// A node: the species, its default pokemon, the step into it (nil at the root) and its children.
    init(speciesID: Int, speciesName: String?, localizedName: LocalizedText?, defaultPokemon: (id: Int, name: String)?,
         step: EvolutionStep?, children: [EvolutionNode]) {
        self.speciesID = speciesID
        self.speciesName = speciesName
        self.localizedName = localizedName
        defaultPokemonID = defaultPokemon?.id
        defaultPokemonName = defaultPokemon?.name
        trigger = step?.trigger
        minLevel = step?.minLevel
        item = step?.item
        detailsJSON = step?.detailsJSON
        conditions = step?.conditions ?? []
        self.children = children
    }

    /// `Identifiable`: the species id.
    public var id: Int { speciesID }

    /// The node of `speciesID` in this tree, if any.
    public func node(speciesID: Int) -> EvolutionNode? {
        if self.speciesID == speciesID { return self }
        for child in children {
            if let found = child.node(speciesID: speciesID) { return found }
        }
        return nil
    }

    /// Every species id of the tree, depth first from this node.
    public var allSpeciesIDs: [Int] { [speciesID] + children.flatMap(\.allSpeciesIDs) }
}

/// One `evolution_step` row: how a species evolves from its parent, its conditions read
/// from `details_json` as the row is read.
struct EvolutionStep {
    /// The `evolution_step` columns ``init(row:)`` reads.
    static let columns = ["to_species_id", "from_species_id", "trigger", "min_level", "item", "details_json"]

    let fromSpeciesID: Int
    let toSpeciesID: Int
    let trigger: String?
    let minLevel: Int?
    let item: String?
    let detailsJSON: String
    let conditions: [EvolutionCondition]

    /// - Throws: ``ReadError`` for a value of the wrong type, or `details_json` that is not
    ///   a JSON array of condition objects.
    init(row: ReadRow) throws {
        fromSpeciesID = try row.int("from_species_id")
        toSpeciesID = try row.int("to_species_id")
        trigger = try row.optionalText("trigger")
        minLevel = try row.optionalInt("min_level")
        item = try row.optionalText("item")
        detailsJSON = try row.text("details_json")
        do {
            conditions = try JSONDecoder().decode([EvolutionCondition].self, from: Data(detailsJSON.utf8))
        } catch {
            throw row.failure("details_json", problem: "is not a JSON array of evolution conditions")
        }
    }
}
