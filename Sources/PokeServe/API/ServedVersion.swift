import PokeArchive
import PokeHTTP
import PokeSyncCore

/// One published version as `serve` answers from it: the root's endpoints, each kind's
/// list in the source's order with its documents by id and by name, the encounters and
/// `meta` documents. Immutable once loaded; a request takes one and answers wholly from it.
///
/// ``load(store:version:)`` is the one place that knows how the store records a version,
/// so the store's growth (recorded root and list order, encounters, meta) changes only it.
final class ServedVersion: Sendable {
    /// One entry of a kind's list.
    struct Entry: Sendable {
        var id: Int
        var name: String?
        var hash: SHA256Digest
    }

    /// A kind with `{kind}/{id}/` documents and a list.
    struct Kind: Sendable {
        var name: ResourceKind
        /// The list, in the source's order.
        var entries: [Entry]
        /// Index into `entries` by id, and by name's ``NameLookup/key(_:)``.
        var byID: [Int: Int]
        var byName: [String: Int]
    }

    let number: Int
    /// `X-PokeAPI-Hash`: a digest of everything the version serves (40 hex digits), so two
    /// servers of the same content send the same value, and another content never does.
    let tag: String
    /// The `X-PokeAPI-Hash` header's line, as a prepared head writes it (``APIResponder``).
    let tagLine: ByteBuffer
    /// The root's endpoints, in order.
    let endpoints: [ResourceKind]
    let kinds: [ResourceKind: Kind]
    /// `/api/v2/pokemon/{id}/encounters` documents by pokemon id.
    let encounters: [Int: SHA256Digest]
    /// `/api/v2/meta/`.
    let meta: SHA256Digest?
    /// The sprites and cries it holds: the links `--sprite-base` points at this server.
    let links: HeldLinks

    init(number: Int, endpoints: [ResourceKind], kinds: [ResourceKind: Kind], encounters: [Int: SHA256Digest], meta: SHA256Digest?,
         links: HeldLinks = .none) {
        self.number = number
        self.links = links
        self.endpoints = endpoints
        self.kinds = kinds
        self.encounters = encounters
        self.meta = meta
        var digest = SHA256()
        for endpoint in endpoints {
            digest.update(Array("endpoint\t\(endpoint.apiName)\n".utf8))
            for entry in kinds[endpoint]?.entries ?? [] {
                digest.update(Array("\(entry.id)\t\(entry.name ?? "")\t\(entry.hash.hex)\n".utf8))
            }
        }
        for (id, hash) in encounters.sorted(by: { $0.key < $1.key }) {
            digest.update(Array("encounters\t\(id)\t\(hash.hex)\n".utf8))
        }
        if let meta { digest.update(Array("meta\t\(meta.hex)\n".utf8)) }
        tag = String(digest.finalize().hex.prefix(40))
        tagLine = ByteBuffer(PreparedHead.lines(nil, [("X-PokeAPI-Hash", tag)]), countedIn: MemoryBudget())
    }

    /// Reads version `version` from `store` (inside the caller's snapshot) in the API's
    /// shape as the export writes it (``APIShape``): each kind's list in the source's
    /// order, an empty kind still listed, names found by ``NameLookup``'s rule, the root's
    /// endpoints.
    /// - Throws: `StoreError` for a damaged store.
    static func load(store: Store, version: Int) throws -> ServedVersion {
        let documents = try store.documents(version: version)
        var grouped: [ResourceKind: [VersionDocument]] = [:]
        var encounters: [Int: SHA256Digest] = [:]
        var meta: SHA256Digest?
        for document in documents {
            switch document.kind {
            case .pokemonEncounters: encounters[document.id] = document.hash
            case .meta: meta = document.hash
            default: grouped[document.kind, default: []].append(document)
            }
        }
        let listed = APIShape.kinds(holding: grouped.keys, mirrored: try store.versionKinds(version)?.resolved ?? [])
            .filter(\.isListed)
        var kinds: [ResourceKind: Kind] = [:]
        for kind in listed {
            let ordered = APIShape.listEntries(kind, documents: grouped[kind] ?? []).map {
                Entry(id: $0.document.id, name: $0.document.name, hash: $0.document.hash)
            }
            var byID: [Int: Int] = [:]
            for (index, entry) in ordered.enumerated() { byID[entry.id] = index }
            kinds[kind] = Kind(name: kind, entries: ordered, byID: byID,
                                       byName: NameLookup.index(ordered.map(\.name)))
        }
        let endpoints = APIShape.endpoints(meta == nil ? listed : listed.union([.meta]))
        return ServedVersion(number: version, endpoints: endpoints, kinds: kinds, encounters: encounters, meta: meta,
                             links: try HeldLinks.load(store: store, version: version))
    }
}
