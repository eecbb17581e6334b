/// The files of an api-data tree that are not documents: the root and each kind's
/// list, as canonical JSON (the exporter renders them in upstream's form like any
/// document, so one writer decides every byte).
enum ApiDataIndexes {
    /// `{"ability":"/api/v2/ability/",...,"meta":"/api/v2/meta/"}`: the endpoints of
    /// ``APIShape/endpoints(_:)``.
    static func root(kinds: some Sequence<ResourceKind>) -> [UInt8] {
        let entries = APIShape.endpoints(kinds).map { kind in
            string(kind.apiName) + [UInt8(ascii: ":")] + string(kind.endpointPath)
        }
        return [UInt8(ascii: "{")] + entries.joined(separator: [UInt8(ascii: ",")]) + [UInt8(ascii: "}")]
    }

    /// `{"count":N,"next":null,"previous":null,"results":[{"name":..,"url":"/api/v2/kind/id/"}]}`
    /// with the entries of ``APIShape/listEntries(_:documents:)``.
    static func list(kind: ResourceKind, documents: [VersionDocument]) -> [UInt8] {
        let ordered = APIShape.listEntries(kind, documents: documents)
        let results = ordered.map { document, path -> [UInt8] in
            var entry: [UInt8] = Array("{".utf8)
            if let name = document.name { entry += string("name") + Array(":".utf8) + string(name) + Array(",".utf8) }
            return entry + string("url") + Array(":".utf8) + string(path) + Array("}".utf8)
        }
        return Array("{\"count\":\(ordered.count),\"next\":null,\"previous\":null,\"results\":[".utf8)
            + results.joined(separator: [UInt8(ascii: ",")]) + Array("]}".utf8)
    }

    /// A JSON string in canonical form.
    private static func string(_ text: String) -> [UInt8] {
        [UInt8(ascii: "\"")] + CanonicalJSON.canonicalStringContents(text) + [UInt8(ascii: "\"")]
    }
}
