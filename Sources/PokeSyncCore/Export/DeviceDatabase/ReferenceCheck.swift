import Foundation
import PokeSQLite

/// The reference check DESIGN asks for before a bundle is written: every pokemon's
/// species, every species' evolution chain, every pokedex entry's species and every
/// evolution step's species exist in the version. A crawl across an upstream deploy can
/// mix documents; such a version must not reach phones.
package enum ReferenceCheck {
    /// What a dangling reference does to a build.
    package enum Policy: Sendable {
        /// The build is refused with a ``DeviceDataError`` naming the first one (what `export` does).
        case refuse
        /// The rows are kept as they are and counted in ``DeviceDatabaseInfo/danglingReferences``:
        /// for cut samples, whose pokedexes and chains name species left out on purpose.
        case keep
    }

    /// Every dangling reference among `rows`, in table then key order, as one line each.
    static func danglingReferences(in rows: DeviceRows, version: Int) -> [String] {
        let species = Set(rows.rows("species").compactMap { $0[0].integerValue })
        let chains = Set(rows.rows("evolution_chain").compactMap { $0[0].integerValue })
        var found: [String] = []
        func missing(_ what: String, _ id: SQLValue, in ids: Set<Int>) -> String? {
            guard let number = id.integerValue else { return "names no \(what)" }
            return ids.contains(number) ? nil : "names \(what) \(number), which version \(version) does not hold"
        }
        for row in rows.rows("pokemon") {
            if let problem = missing("species", row[2], in: species) {
                found.append("pokemon \(row[0].integerValue ?? 0) (\(row[1].textValue ?? "")) \(problem)")
            }
        }
        for row in rows.rows("species") where row[3] != .null {
            if let problem = missing("evolution chain", row[3], in: chains) {
                found.append("species \(row[0].integerValue ?? 0) (\(row[1].textValue ?? "")) \(problem)")
            }
        }
        let pokedexNames = Dictionary(rows.rows("pokedex").map { ($0[0].integerValue ?? 0, $0[1].textValue ?? "") },
                                      uniquingKeysWith: { first, _ in first })
        for row in rows.rows("pokedex_entry") {
            if let problem = missing("species", row[2], in: species) {
                let pokedex = row[0].integerValue ?? 0
                found.append("pokedex \(pokedex) (\(pokedexNames[pokedex] ?? "")) entry \(row[1].integerValue ?? 0) \(problem)")
            }
        }
        for row in rows.rows("evolution_chain") {
            if let problem = missing("species", row[1], in: species) {
                found.append("evolution chain \(row[0].integerValue ?? 0) \(problem)")
            }
        }
        for row in rows.rows("evolution_step") {
            for column in [2, 1] {
                if let problem = missing("species", row[column], in: species) {
                    found.append("evolution chain \(row[0].integerValue ?? 0) \(problem)")
                }
            }
        }
        return found
    }
}

/// A version whose documents cannot make a consistent device database: a dangling
/// reference, or a document without a field the schema needs. Exit 65.
package struct DeviceDataError: PokeSyncFailure, Equatable {
    /// The problem, naming the document or reference.
    package var message: String
    package init(_ message: String) { self.message = message }
    package var exitStatus: ExitStatus { .dataError }
    package var description: String { message }
}
