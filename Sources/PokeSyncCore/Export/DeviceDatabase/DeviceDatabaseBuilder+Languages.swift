import Foundation
import PokedexReader
import PokeSQLite

extension DeviceDatabaseBuilder {
    /// The localized tables and their language column.
    /// (`language_name` by `in_language`, the code its name is written in.)
    static let localizedTables = [("species_name", 1), ("species_flavor_text", 1), ("pokedex_description", 1),
                                  ("type_name", 1), ("ability_name", 1), ("ability_text", 1), ("move_name", 1),
                                  ("move_text", 1), ("stat_name", 1), ("version_name", 1), ("language_name", 1)]

    /// Keeps only the profile's languages in every localized table.
    /// - Returns: the language codes left in the database, as the API spells them, sorted.
    /// - Throws: `RequestError` naming the profile's codes the version does not have, and
    ///   listing those it has.
    static func keepLanguages(of profile: BundleProfile, in rows: inout DeviceRows, version: Int) throws -> [String] {
        var present = Set<String>()
        for (table, column) in localizedTables {
            for row in rows.rows(table) { if let code = row[column].textValue { present.insert(code) } }
        }
        guard let wanted = profile.languages else { return present.sorted() }
        let lowercased = Set(present.map { $0.lowercased() })
        // `en` is the fallback, always kept: not an error when a version lacks it.
        let unknown = wanted.filter { $0 != "en" && !lowercased.contains($0) }
        guard unknown.isEmpty else {
            throw RequestError.unknownLanguages(version: version, missing: unknown, present: present.sorted())
        }
        for (table, column) in localizedTables {
            rows.filter(table) { row in row[column].textValue.map(profile.keeps(language:)) ?? true }
        }
        return present.filter(profile.keeps(language:)).sorted()
    }
}
