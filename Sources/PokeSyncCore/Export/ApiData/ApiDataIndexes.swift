/// The files of an api-data tree that are not documents: the root and each kind's
/// list, as canonical JSON (the exporter renders them in upstream's form like any
/// document, so one writer decides every byte).
enum ApiDataIndexes {
    /// `{"ability":"/api/v2/ability/",...,"meta":"/api/v2/meta/"}`: every listed kind of
    /// the version, and meta when it holds it (encounters have no endpoint of their own).
    static func root(kinds: [ResourceKind]) -> [UInt8] {
        let entries = kinds.filter { $0 != .pokemonEncounters }.map(\.apiName).sorted().map { name in
            string(name) + [UInt8(ascii: ":")] + string("/api/v2/\(name)/")
        }
        return [UInt8(ascii: "{")] + entries.joined(separator: [UInt8(ascii: ",")]) + [UInt8(ascii: "}")]
    }

    /// `{"count":N,"next":null,"previous":null,"results":[{"name":..,"url":"/api/v2/kind/id/"}]}`
    /// in the source's order (id order for versions made before it was kept). Entries
    /// the source lists without a name (evolution chains, machines...) get none.
    static func list(kind: ResourceKind, documents: [VersionDocument]) -> [UInt8] {
        let ordered = NameLookup.inListOrder(documents)
        let results = ordered.map { document -> [UInt8] in
            var entry: [UInt8] = Array("{".utf8)
            if let name = document.name { entry += string("name") + Array(":".utf8) + string(name) + Array(",".utf8) }
            return entry + string("url") + Array(":".utf8) + string(kind.documentPath(id: document.id)) + Array("}".utf8)
        }
        return Array("{\"count\":\(ordered.count),\"next\":null,\"previous\":null,\"results\":[".utf8)
            + results.joined(separator: [UInt8(ascii: ",")]) + Array("]}".utf8)
    }

    /// A JSON string in canonical form.
    private static func string(_ text: String) -> [UInt8] {
        [UInt8(ascii: "\"")] + CanonicalJSON.canonicalStringContents(text) + [UInt8(ascii: "\"")]
    }
}
