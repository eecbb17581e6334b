import Foundation
import PokedexReader

extension DeviceDatabaseBuilder {
    /// Keeps only the profile's languages in every localized table.
    /// - Returns: the language codes left in the database, as the API spells them, sorted.
    /// - Throws: `RequestError` naming the profile's codes the version does not have, and
    ///   listing those it has.
    static func keepLanguages(of profile: BundleProfile, in rows: inout DeviceRows, version: Int) throws -> [String] {
        let present = rows.keepLanguages(where: profile.keeps(language:))
        guard let wanted = profile.languages else { return present.sorted() }
        let lowercased = Set(present.map { $0.lowercased() })
        // `en` is the fallback, always kept: not an error when a version lacks it.
        let unknown = wanted.filter { $0 != "en" && !lowercased.contains($0) }
        guard unknown.isEmpty else {
            throw RequestError.unknownLanguages(version: version, missing: unknown, present: present.sorted())
        }
        return present.filter(profile.keeps(language:)).sorted()
    }
}
