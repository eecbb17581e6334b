/// The API's shape, written down once for the api-data export and for `serve`: which
/// kinds a version lists, the root's endpoints, a list's entries in order. The URL
/// of each part is ``ResourceKind``'s (``ResourceKind/endpointPath``,
/// ``ResourceKind/documentPath(id:)``), and how a name finds a document is ``NameLookup``'s.
/// A change to the shape made here is made for the files the export writes and the
/// answers `serve` gives alike (<doc:PokeSyncCore/Sources#Kinds>).
package enum APIShape {
    /// `/api/v2/`: the root, whose JSON names every endpoint. The one place the API's path
    /// is spelled: every other form of it below is derived from this one.
    package static let rootPath = "/api/v2/"

    /// `/api/v2`: the root without its trailing slash, as an API base URL ends
    /// (`https://pokeapi.co/api/v2`).
    package static let basePath = String(rootPath.dropLast())

    /// `api/v2`: the root as a folder below the top of an api-data tree
    /// (`api/v2/index.json`).
    package static let folderPath = String(basePath.dropFirst())

    /// The bytes of ``rootPath``, for scanners that compare raw JSON bytes.
    package static let rootPathBytes = Array(rootPath.utf8)

    /// `/schema/v2`: where the api-data tree's JSON schemas live (`/schema/v2/NAME.json`),
    /// the schema's counterpart of ``basePath``.
    package static let schemaBasePath = "/schema/v2"

    /// `schema/v2`: the schemas' folder below the top of an api-data tree.
    package static let schemaFolderPath = String(schemaBasePath.dropFirst())

    /// The kinds of a version: those it holds documents of and every kind it mirrors, so
    /// a kind whose list was empty is still listed (its list says `count` 0, and the root
    /// names it, as upstream's do).
    package static func kinds(holding held: some Sequence<ResourceKind>, mirrored: [ResourceKind]) -> Set<ResourceKind> {
        Set(held).union(mirrored)
    }

    /// The root's endpoints, by name: every listed kind of `kinds`, and meta when it is
    /// among them. Encounters are never an endpoint of their own (they hang below
    /// `pokemon/N/`).
    package static func endpoints(_ kinds: some Sequence<ResourceKind>) -> [ResourceKind] {
        kinds.filter { $0.isListed || $0 == .meta }.sorted { $0.apiName < $1.apiName }
    }

    /// A list's entries as the source lists them (``NameLookup/inListOrder(_:)``: the
    /// position the store kept, else the id, then the id), each with the path it links to.
    /// Entries the source lists without a name (evolution chains, machines...) get none.
    package static func listEntries(_ kind: ResourceKind, documents: [VersionDocument])
        -> [(document: VersionDocument, path: String)] {
        NameLookup.inListOrder(documents).map { ($0, kind.documentPath(id: $0.id)) }
    }
}

extension ResourceKind {
    /// Where the root links this kind: its list, `/api/v2/pokemon/` (for meta, its one
    /// document, `/api/v2/meta/`).
    package var endpointPath: String { APIShape.rootPath + rawValue + "/" }
}
