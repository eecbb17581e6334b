import Foundation
import PokeSyncCore
import PokedexReader

/// The terminal card of `pokesync show`: name and genus, types, size, base stats as
/// bars, abilities, moves, sprites, the flavor text and the evolution chain as a tree.
struct PokemonCard {
    let detail: PokemonDetail
    let width: Int

    func render() -> String {
        var lines: [String] = []
        let species = detail.species
        let title = "#\(detail.id) \(detail.name)" + (species?.localizedName.map { "  (\($0.text))" } ?? "")
        lines.append(title)
        if let genus = species?.genus { lines.append(genus.text) }
        lines.append("types: " + detail.types.joined(separator: ", "))
        lines.append(String(format: "height %.1f m, weight %.1f kg", Double(detail.height) / 10, Double(detail.weight) / 10))
        lines.append("")
        lines.append("base stats")
        let barWidth = max(10, min(40, width - 24))
        for stat in detail.stats {
            let filled = min(barWidth, stat.baseStat * barWidth / 255)
            lines.append("  " + stat.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                         + String(format: "%3d ", stat.baseStat) + String(repeating: "█", count: filled))
        }
        lines.append("")
        lines.append("abilities: " + detail.abilities.map { $0.isHidden ? "\($0.name) (hidden)" : $0.name }.joined(separator: ", "))
        let shown = detail.moves.prefix(12).joined(separator: ", ")
        lines.append("moves (\(detail.moves.count)): " + shown + (detail.moves.count > 12 ? ", ..." : ""))
        let bundled = detail.sprites.filter { $0.path != nil }
        lines.append("sprites: \(detail.sprites.count) known, \(bundled.count) in the bundle"
                     + (bundled.first.map { " (\($0.key): \($0.path!))" } ?? ""))
        if let flavor = species?.flavorText {
            lines.append("")
            lines.append("\u{201C}\(flavor.text)\u{201D} (\(flavor.version), \(flavor.language))")
        }
        if let chain = species?.evolutionChain {
            lines.append("")
            lines.append("evolution")
            append(chain, prefix: "  ", isLast: true, isRoot: true, to: &lines)
        }
        // Every name and text comes from the bundle: no control character reaches the terminal.
        return lines.map(TerminalText.escaped).joined(separator: "\n")
    }

    private func append(_ node: EvolutionNode, prefix: String, isLast: Bool, isRoot: Bool, to lines: inout [String]) {
        var how: [String] = []
        if let trigger = node.trigger { how.append(trigger) }
        if let level = node.minLevel { how.append("level \(level)") }
        if let item = node.item { how.append(item) }
        let name = node.defaultPokemonName ?? node.speciesName ?? "species \(node.speciesID)"
        let marker = node.defaultPokemonID == detail.id || node.speciesID == detail.species?.id ? " ◀" : ""
        let branch = isRoot ? "" : (isLast ? "└─ " : "├─ ")
        lines.append(prefix + branch + name + (how.isEmpty ? "" : " (\(how.joined(separator: ", ")))") + marker)
        let childPrefix = isRoot ? prefix : prefix + (isLast ? "   " : "│  ")
        for (offset, child) in node.children.enumerated() {
            append(child, prefix: childPrefix, isLast: offset == node.children.count - 1, isRoot: false, to: &lines)
        }
    }
}
