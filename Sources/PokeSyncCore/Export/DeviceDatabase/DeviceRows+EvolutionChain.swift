import Foundation
import PokeSQLite

extension DeviceRow {
    /// A row of `evolution_chain`.
    struct EvolutionChain: DeviceTableRow {
        var id: Int
        /// From the root species link's URL; nil when the link has none (a dangling reference).
        var rootSpeciesID: Int?
        var babyTriggerItem: String?
    }

    /// A row of `evolution_step`: one edge of a chain's tree.
    struct EvolutionStep: DeviceTableRow {
        var chainID: Int
        /// -1 when the link has no species id (the reference check reports it).
        var toSpeciesID: Int
        /// -1 when the parent link has no species id, as for `toSpeciesID`.
        var fromSpeciesID: Int
        var trigger: String?
        var minLevel: Int?
        var item: String?
        /// Every evolution detail of the step, as canonical JSON.
        var detailsJSON: String
    }
}

extension DeviceRows {
    /// The rows of one evolution-chain document: `evolution_chain`, and one
    /// `evolution_step` per edge of the tree (eevee's chain has eight). A step's
    /// `trigger`, `min_level` and `item` come from the first of its evolution details;
    /// `details_json` keeps all of them as canonical JSON (keys sorted, minified, nulls kept).
    static func evolutionChain(_ document: EvolutionChainDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = document.id
        rows.evolutionChains = [DeviceRow.EvolutionChain(id: id, rootSpeciesID: document.chain.species.id,
                                                         babyTriggerItem: document.baby_trigger_item?.name)]
        var steps = KeyedRows<Int, DeviceRow.EvolutionStep>()
        var pending = [document.chain]
        while let node = pending.popLast() {
            let from = node.species.id
            for next in node.evolves_to {
                pending.append(next)
                // A species id is required for the key; a link without one is caught by the
                // reference check, which reads the chain's species from these rows.
                let to = next.species.id ?? -1
                let first = next.evolution_details.first.flatMap(Self.members)
                steps.add(to, DeviceRow.EvolutionStep(chainID: id, toSpeciesID: to, fromSpeciesID: from ?? -1,
                                                      trigger: first?["trigger"].flatMap(Self.name),
                                                      minLevel: first?["min_level"].flatMap(Self.integer),
                                                      item: first?["item"].flatMap(Self.name),
                                                      detailsJSON: JSONValue.array(next.evolution_details).canonical))
            }
        }
        rows.evolutionSteps = steps.sorted
        return rows
    }

    private static func members(_ value: JSONValue) -> [String: JSONValue]? {
        guard case .object(let members) = value else { return nil }
        return Dictionary(members, uniquingKeysWith: { first, _ in first })
    }

    /// `{"name": "level-up", ...}` gives "level-up".
    private static func name(_ value: JSONValue) -> String? {
        guard case .string(let name)? = members(value)?["name"] else { return nil }
        return name
    }

    private static func integer(_ value: JSONValue) -> Int? {
        guard case .integer(let number) = value else { return nil }
        return number
    }
}
