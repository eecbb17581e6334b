import Foundation
import PokeSQLite

extension DeviceRows {
    /// The rows of one evolution-chain document: `evolution_chain`, and one
    /// `evolution_step` per edge of the tree (eevee's chain has eight). A step's
    /// `trigger`, `min_level` and `item` come from the first of its evolution details;
    /// `details_json` keeps all of them as canonical JSON (keys sorted, minified, nulls kept).
    static func evolutionChain(_ document: EvolutionChainDocument) -> DeviceRows {
        var rows = DeviceRows()
        let id = SQLValue(document.id)
        rows.append("evolution_chain", [id, SQLValue(document.chain.species.id), SQLValue(document.baby_trigger_item?.name)])
        var steps = KeyedRows<Int>()
        var pending = [document.chain]
        while let node = pending.popLast() {
            let from = node.species.id
            for next in node.evolves_to {
                pending.append(next)
                // A species id is required for the key; a link without one is caught by the
                // reference check, which reads the chain's species from these rows.
                let to = next.species.id ?? -1
                let first = next.evolution_details.first.flatMap(Self.members)
                steps.add(to, [id, SQLValue(to), SQLValue(from ?? -1), SQLValue(first?["trigger"].flatMap(Self.name)),
                               SQLValue(first?["min_level"].flatMap(Self.integer)),
                               SQLValue(first?["item"].flatMap(Self.name)),
                               .text(JSONValue.array(next.evolution_details).canonical)])
            }
        }
        for row in steps.sorted { rows.append("evolution_step", row) }
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
