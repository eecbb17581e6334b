/// How a name finds one document of a kind: the rule `serve` answers `/api/v2/{kind}/{name}/`
/// by and the api-data export writes its name aliases by, kept in one place so the two
/// never disagree about a name two documents share.
///
/// PokeAPI's own server matches a name case-insensitively and answers a 500 when two
/// documents share it (in 2026-08, items 723 and 2279 are both `roseli-berry`). pokesync
/// answers one document instead, the same one every time: the later of them in the
/// source's list order (the position the store kept, then the id).
package enum NameLookup {
    /// The key a name is found by: its ASCII letters lowercased and nothing else changed,
    /// as PokeAPI's server matches names (`/pokemon/Pikachu/` is pikachu; a Kelvin sign or
    /// a dotless I is not a letter of a name).
    package static func key(_ name: some StringProtocol) -> String {
        String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// For a kind's documents in the source's list order, the index of the document each
    /// name key finds: the last one in that order that has the name. Documents without a
    /// name are found by none.
    package static func index(_ names: some Sequence<String?>) -> [String: Int] {
        var found: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            if let name { found[key(name)] = index }
        }
        return found
    }

    /// The list order `index(_:)` expects: by the position the store kept (nil for a
    /// version made before positions were kept: the id stands in), then by id.
    package static func inListOrder(_ documents: [VersionDocument]) -> [VersionDocument] {
        documents.sorted { ($0.position ?? $0.id, $0.id) < ($1.position ?? $1.id, $1.id) }
    }
}
