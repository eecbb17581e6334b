import Foundation

/// The reference check (<doc:PokeSyncCore/Bundles#The-reference-check>) made before a bundle is written: every pokemon's
/// species, every species' evolution chain, every pokedex entry's species and every
/// evolution step's species exist in the version. A crawl across an upstream deploy can
/// mix documents; such a version must not reach phones.
package enum ReferenceCheck {
    /// What a dangling reference does to a build.
    package enum Policy: Sendable {
        /// The build is refused with a ``ExportError/deviceData(_:)`` naming the first one (what `export` does).
        case refuse
        /// The rows are kept as they are and counted in ``DeviceDatabaseInfo/danglingReferences``:
        /// for cut samples, whose pokedexes and chains name species left out on purpose.
        case keep
    }

    /// The kinds whose documents the check follows references into, by the kind that names them.
    static let referencedKinds: [ResourceKind: [ResourceKind]] = [
        .pokemon: [.pokemonSpecies], .pokemonSpecies: [.evolutionChain],
        .pokedex: [.pokemonSpecies], .evolutionChain: [.pokemonSpecies],
    ]

    /// The kinds a version holding `kinds` lacks for every reference the check follows to
    /// resolve (a mirror of pokemon alone lacks pokemon-species and evolution-chain), sorted:
    /// such a version can make no bundle.
    package static func kindsLacking(for kinds: [ResourceKind]) -> [ResourceKind] {
        var needed = Set(kinds)
        var queue = kinds
        while let kind = queue.popLast() {
            for next in referencedKinds[kind] ?? [] where needed.insert(next).inserted { queue.append(next) }
        }
        return needed.subtracting(kinds).sorted()
    }

    /// Every dangling reference among `rows`, in table then key order, as one line each.
    static func danglingReferences(in rows: DeviceRows, version: Int) -> [String] {
        let species = Set(rows.species.map(\.id))
        let chains = Set(rows.evolutionChains.map(\.id))
        var found: [String] = []
        func missing(_ what: String, _ id: Int?, in ids: Set<Int>) -> String? {
            guard let id else { return "names no \(what)" }
            return ids.contains(id) ? nil : "names \(what) \(id), which version \(version) does not hold"
        }
        for row in rows.pokemon {
            if let problem = missing("species", row.speciesID, in: species) {
                found.append("pokemon \(row.id) (\(row.name)) \(problem)")
            }
        }
        for row in rows.species where row.evolutionChainID != nil {
            if let problem = missing("evolution chain", row.evolutionChainID, in: chains) {
                found.append("species \(row.id) (\(row.name)) \(problem)")
            }
        }
        let pokedexNames = Dictionary(rows.pokedexes.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        for row in rows.pokedexEntries {
            if let problem = missing("species", row.speciesID, in: species) {
                found.append("pokedex \(row.pokedexID) (\(pokedexNames[row.pokedexID] ?? "")) entry \(row.entryNumber) \(problem)")
            }
        }
        for row in rows.evolutionChains {
            if let problem = missing("species", row.rootSpeciesID, in: species) {
                found.append("evolution chain \(row.id) \(problem)")
            }
        }
        for row in rows.evolutionSteps {
            for id in [row.fromSpeciesID, row.toSpeciesID] {
                if let problem = missing("species", id, in: species) {
                    found.append("evolution chain \(row.chainID) \(problem)")
                }
            }
        }
        return found
    }
}
