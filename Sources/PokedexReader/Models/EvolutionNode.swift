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
    /// What it evolves into (eevee has eight), by species id.
    public let children: [EvolutionNode]

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
