import Foundation
import PokeSyncCore
import PokedexReader

/// The terminal card of `pokesync show`: name and genus, types, size, base stats as
/// bars, abilities, moves, sprites, the flavor text and the evolution chain as a tree.
struct PokemonCard {
    let detail: PokemonDetail
    var defense: TypeDefense?
    let width: Int

    init(detail: PokemonDetail, defense: TypeDefense? = nil, width: Int) {
        self.detail = detail
        self.defense = defense
        self.width = width
    }

    /// "전기 (electric)" in another language, "electric" in English.
    private func named(_ slug: String, _ name: LocalizedText?) -> String {
        guard let text = name?.text, text.lowercased() != slug.replacingOccurrences(of: "-", with: " ") else { return slug }
        return "\(text) (\(slug))"
    }

    func render() -> String {
        var lines: [String] = []
        let species = detail.species
        let title = "#\(detail.id) \(detail.name)" + (species?.localizedName.map { "  (\($0.text))" } ?? "")
        lines.append(title)
        if let genus = species?.genus { lines.append(genus.text) }
        lines.append("types: " + detail.localizedTypes.map { named($0.name, $0.localizedName) }.joined(separator: ", "))
        lines.append(String(format: "height %.1f m, weight %.1f kg", Double(detail.height) / 10, Double(detail.weight) / 10))
        lines.append("")
        lines.append("base stats")
        let barWidth = max(10, min(40, width - 24))
        for stat in detail.stats {
            let filled = min(barWidth, stat.baseStat * barWidth / 255)
            lines.append("  " + TerminalText.padded(stat.localizedName?.text ?? stat.name, toColumns: 16)
                         + String(format: "%3d ", stat.baseStat) + String(repeating: "█", count: filled))
        }
        lines.append("")
        lines.append("abilities: " + detail.abilities.map {
            let name = named($0.name, $0.localizedName)
            return $0.isHidden ? "\(name) (hidden)" : name
        }.joined(separator: ", "))
        for ability in detail.abilities {
            if let effect = ability.flavorText ?? ability.shortEffect {
                lines.append("  \(ability.localizedName?.text ?? ability.name): \(effect.text)")
            }
        }
        let shown = detail.moveDetails.prefix(12).map { $0.localizedName?.text ?? $0.name }.joined(separator: ", ")
        lines.append("moves (\(detail.moves.count)): " + shown + (detail.moves.count > 12 ? ", ..." : ""))
        let bundled = detail.sprites.filter { $0.path != nil }
        lines.append("sprites: \(detail.sprites.count) known, \(bundled.count) in the bundle"
                     + (bundled.first.map { " (\($0.key): \($0.path!))" } ?? ""))
        if let flavor = species?.flavorText {
            lines.append("")
            lines.append("\u{201C}\(flavor.text)\u{201D} (\(flavor.versionName?.text ?? flavor.version), \(flavor.language))")
        }
        if let defense {
            lines.append("")
            lines.append("damage taken")
            for (factor, types) in defense.byFactor where factor != 1 {
                let label = factor == 0.25 ? "1/4x" : factor == 0.5 ? "1/2x" : factor == 0 ? "0x" : "\(Int(factor))x"
                lines.append("  " + label.padding(toLength: 6, withPad: " ", startingAt: 0)
                             + types.map { $0.displayName }.joined(separator: ", "))
            }
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
