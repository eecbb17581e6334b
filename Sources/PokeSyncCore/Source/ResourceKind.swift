/// A kind of PokeAPI resource, by its API name (`pokemon`, `item`, `machine`...).
///
/// Kinds are data, read from the source's root (`/api/v2/`), not a fixed list: an
/// endpoint upstream adds (2026 added `currency`) is mirrored by the next
/// `sync --kinds all` without a code change. Ten are named here because code reads
/// them (the device database), and two are not `{kind}/{id}` documents of a list
/// (<doc:PokeSyncCore/Sources#Kinds>): `pokemon-encounters` (the encounters of pokemon N, at
/// `/api/v2/pokemon/N/encounters`) and `meta` (`/api/v2/meta/`, id 0).
package struct ResourceKind: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The API name, as in `/api/v2/pokemon-species/25/`.
    package let rawValue: String

    /// Any name: whether the source has such an endpoint is the source's to say.
    package init(rawValue: String) { self.rawValue = rawValue }

    /// The API name, as in `/api/v2/pokemon-species/25/`.
    package var apiName: String { rawValue }
    package var description: String { rawValue }

    package static let pokemon = ResourceKind(rawValue: "pokemon")
    package static let pokemonSpecies = ResourceKind(rawValue: "pokemon-species")
    package static let pokedex = ResourceKind(rawValue: "pokedex")
    package static let evolutionChain = ResourceKind(rawValue: "evolution-chain")
    package static let type = ResourceKind(rawValue: "type")
    package static let ability = ResourceKind(rawValue: "ability")
    package static let move = ResourceKind(rawValue: "move")
    package static let stat = ResourceKind(rawValue: "stat")
    package static let version = ResourceKind(rawValue: "version")
    package static let language = ResourceKind(rawValue: "language")
    /// The encounters of pokemon N: a JSON array, not in any list, one per listed pokemon.
    package static let pokemonEncounters = ResourceKind(rawValue: "pokemon-encounters")
    /// The deploy's hash and date: one document, id 0, listed by the root only.
    package static let meta = ResourceKind(rawValue: "meta")

    /// `--kinds default`: the four the apps are built on, then the six reference kinds
    /// whose localized names and facts the device database carries. Their order is the
    /// order of progress lines and diff summaries; other kinds follow by name.
    package static let defaultKinds: [ResourceKind] = [
        .pokemon, .pokemonSpecies, .pokedex, .evolutionChain, .type, .ability, .move, .stat, .version, .language,
    ]

    /// The last segment of an encounters document's path, below its pokemon's:
    /// `/api/v2/pokemon/25/encounters`.
    package static let encountersSegment = "encounters"

    /// Whether the kind has a list (`/api/v2/{kind}/`) whose entries are its documents.
    package var isListed: Bool { self != .pokemonEncounters && self != .meta }

    /// The key of one document in the frontier, the validators, diffs and messages:
    /// `pokemon-species/25`. The one place it is spelled.
    package func documentKey(id: Int) -> String { "\(rawValue)/\(id)" }

    /// The relative URL of one document, as stored and as PokeAPI links it:
    /// `/api/v2/pokemon/25/`, `/api/v2/pokemon/25/encounters` (no slash, as the API
    /// writes it), `/api/v2/meta/`.
    package func documentPath(id: Int) -> String {
        switch self {
        case .pokemonEncounters: return "\(APIShape.rootPath)\(Self.pokemon.rawValue)/\(id)/\(Self.encountersSegment)"
        case .meta: return "\(APIShape.rootPath)meta/"
        default: return "\(APIShape.rootPath)\(rawValue)/\(id)/"
        }
    }

    /// The document's file in the api-data layout, below `api/v2/`:
    /// `pokemon/25/index.json`, `pokemon/25/encounters/index.json`, `meta/index.json`.
    package func apiDataFile(id: Int) -> String { apiDataFile(key: String(id)) }

    /// The file a document is found at by `key`, its id or (for a deployment's name
    /// aliases) its name: `pokemon/pikachu/index.json`, `pokemon/pikachu/encounters/index.json`.
    package func apiDataFile(key: String) -> String {
        switch self {
        case .pokemonEncounters: return "\(Self.pokemon.rawValue)/\(key)/\(Self.encountersSegment)/index.json"
        case .meta: return "meta/index.json"
        default: return "\(rawValue)/\(key)/index.json"
        }
    }

    /// What is wrong with `document` as this kind's document `id`, or nil: a listed kind's
    /// document is an object saying its own id, encounters are an array, meta an object.
    /// A source that sends something else (a proxy's error page that happens to be JSON,
    /// a hostile server) is refused before anything stores it.
    package func problem(with document: CanonicalDocument, id: Int) -> String? {
        let first = document.bytes.first
        switch self {
        case .pokemonEncounters:
            return first == UInt8(ascii: "[") ? nil : "the encounters document is not a JSON array"
        case .meta:
            return first == UInt8(ascii: "{") ? nil : "the meta document is not a JSON object"
        default:
            guard first == UInt8(ascii: "{") else { return "the document is not a JSON object" }
            return document.id == id ? nil : "document says id \(document.id.map(String.init) ?? "none"), expected \(id)"
        }
    }

    /// Whether `name` can be an endpoint's name: lowercase letters, digits and dashes,
    /// as every PokeAPI endpoint is. A name is also a folder of an api-data tree and a
    /// path segment of a request, so nothing else is taken from a source's root.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.first != "-"
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    /// The default kinds in their order, then the others by name, encounters and
    /// meta last: the order of lists, progress lines and diff summaries.
    package static func < (lhs: ResourceKind, rhs: ResourceKind) -> Bool {
        lhs.sortKey < rhs.sortKey
    }

    private var sortKey: (Int, String) {
        if let index = Self.defaultKinds.firstIndex(of: self) { return (index, "") }
        switch self {
        case .pokemonEncounters: return (Self.defaultKinds.count + 1, "")
        case .meta: return (Self.defaultKinds.count + 2, "")
        default: return (Self.defaultKinds.count, rawValue)
        }
    }
}

/// One entry of a kind's list: what the list says exists.
package struct ListedResource: Sendable, Hashable {
    package var kind: ResourceKind
    package var id: Int
    /// Evolution chains, machines and a few others have no name in their list.
    package var name: String?

    package init(kind: ResourceKind, id: Int, name: String?) {
        self.kind = kind
        self.id = id
        self.name = name
    }

    /// The id at the end of a resource URL: `/api/v2/pokemon/25/` and
    /// `https://pokeapi.co/api/v2/pokemon/25` both give 25; `/api/v2/move-ailment/-1/` -1.
    package static func id(fromURL url: String) -> Int? {
        url.split(separator: "/").last.flatMap { Int($0) }
    }
}
