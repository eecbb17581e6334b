/// `--kinds SET` (and `"kinds"` in mirror.json): which kinds a `full` or `sync` mirrors.
///
/// `default` is the ten the device database reads; `all` is every endpoint the source's
/// root lists at the time of the run, plus every pokemon's encounters; a comma list
/// names endpoints (and may name `pokemon-encounters` and `meta`). What a selection
/// resolves to is recorded with the run, so a resumed run keeps it.
package enum KindSelection: Sendable, Equatable, CustomStringConvertible {
    case `default`
    case all
    case list([ResourceKind])

    /// - Throws: `RequestError.badKinds` for an empty list or a name that cannot be an
    ///   endpoint's (`Pokemon`, `../x`).
    package init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "default": self = .default
        case "all": self = .all
        default:
            var kinds: [ResourceKind] = []
            for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
                let name = part.trimmingCharacters(in: .whitespaces)
                guard ResourceKind.isValidName(name) else {
                    throw RequestError.badKinds(text, reason: name.isEmpty ? "an empty name" : "\"\(name)\" is not an endpoint name")
                }
                guard name != "all" && name != "default" else {
                    throw RequestError.badKinds(text, reason: "\(name) stands alone, not in a list")
                }
                let kind = ResourceKind(rawValue: name)
                if !kinds.contains(kind) { kinds.append(kind) }
            }
            // Encounters are one per listed pokemon: without the pokemon list there are none.
            if kinds.contains(.pokemonEncounters), !kinds.contains(.pokemon) {
                throw RequestError.badKinds(text, reason: "pokemon-encounters needs pokemon in the set")
            }
            self = .list(kinds.sorted())
        }
    }

    /// As recorded with a run and a version: `default`, `all` or the sorted comma list.
    package var description: String {
        switch self {
        case .default: return "default"
        case .all: return "all"
        case .list(let kinds): return kinds.map(\.apiName).joined(separator: ",")
        }
    }

    /// Whether the selection can only be resolved by reading the source's root.
    package var needsRoot: Bool { self == .all }

    /// The kinds this selection mirrors, given the endpoints the source's root lists
    /// (nil when it was not read). `all` takes every listed endpoint (`meta` as the one
    /// document it is) and adds `pokemon-encounters` when `pokemon` is among them.
    /// - Throws: `RequestError.unknownKinds` when a named kind is not in the root.
    package func resolve(root: [String]?) throws -> [ResourceKind] {
        switch self {
        case .default:
            return ResourceKind.defaultKinds
        case .all:
            var kinds = (root ?? []).map(ResourceKind.init(rawValue:))
            if kinds.contains(.pokemon) { kinds.append(.pokemonEncounters) }
            return Array(Set(kinds)).sorted()
        case .list(let kinds):
            if let root {
                let known = Set(root).union([ResourceKind.pokemonEncounters.apiName])
                let unknown = kinds.filter { !known.contains($0.apiName) }
                if !unknown.isEmpty {
                    throw RequestError.unknownKinds(unknown.map(\.apiName), known: root.sorted())
                }
            }
            return kinds
        }
    }
}
