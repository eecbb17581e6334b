import Foundation
import PokedexReader

extension Store {
    /// Checks, before any database is built (seconds of work), that `version` has every
    /// language `profile` asks for, so a typo in `--languages` is told at once. The
    /// builder checks again exactly (``DeviceDatabaseBuilder/keepLanguages``); this looks
    /// only for a code named as a `language` anywhere in the version's species and
    /// pokedex documents, and stops reading as soon as every code is found.
    /// - Throws: `RequestError` (64) naming the codes the version lacks and those it has;
    ///   `StoreError` (65) for a damaged document.
    func checkLanguagesExist(_ profile: BundleProfile, version: Int) throws {
        guard let wanted = profile.languages else { return }
        // `en` is the fallback, always kept: not an error when a version lacks it.
        var missing = Set(wanted.filter { $0 != "en" })
        guard !missing.isEmpty else { return }
        var present = Set<String>()
        let documents = try documents(version: version).filter { $0.kind == .pokemonSpecies || $0.kind == .pokedex }
        for document in documents {
            Self.languageNames(in: try documentBody(document.hash), into: &present)
            missing.subtract(present.map { $0.lowercased() })
            if missing.isEmpty { return }
        }
        throw RequestError.unknownLanguages(version: version, missing: missing.sorted(), present: present.sorted())
    }

    /// Adds every `"language":{"name":"CODE"` of a canonical JSON body (sorted keys, no
    /// spaces: the object's `name` comes first) to `names`.
    static func languageNames(in body: [UInt8], into names: inout Set<String>) {
        let pattern = Array(#""language":{"name":""#.utf8)
        guard body.count > pattern.count else { return }
        var index = 0
        let last = body.count - pattern.count
        while index <= last {
            guard body[index] == pattern[0], body[index..<index + pattern.count].elementsEqual(pattern) else { index += 1; continue }
            let start = index + pattern.count
            guard let end = body[start...].prefix(64).firstIndex(of: UInt8(ascii: "\"")) else { index = start; continue }
            names.insert(String(decoding: body[start..<end], as: UTF8.self))
            index = end
        }
    }
}
