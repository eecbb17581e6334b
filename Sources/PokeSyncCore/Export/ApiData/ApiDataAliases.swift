/// The name aliases of an api-data export, as ditto's `transform` writes them for a static
/// deployment: every document that has a name a second time at `{kind}/{name}/index.json`,
/// and each pokemon's encounters at `pokemon/{name}/encounters/index.json`, so a static
/// host answers `/api/v2/pokemon/pikachu/` as it answers `/api/v2/pokemon/25/`.
///
/// ditto writes whichever of two documents sharing a name it reaches last (the file
/// system's order); here that name is the document `serve` answers for it (`NameLookup`),
/// every time. A name that is not a plain path segment is left out: ditto would write it
/// outside its folder (`..`, `a/b`), over a document (`7`) or over a list (`index.json`).
struct ApiDataAliases {
    /// The alias paths (below `api/v2/`) of each document's file, by that file's path.
    var paths: [String: [String]] = [:]
    /// One line for each name two documents share and each name left out.
    var notes: [String] = []
    /// How many alias files there are.
    var count: Int { paths.values.reduce(0) { $0 + $1.count } }

    /// The aliases of `documents` (one version's): the name the store keeps for each
    /// document, which is its list entry's and, in every api-data tree, its own `name`.
    init(documents: [VersionDocument]) {
        let byKind = Dictionary(grouping: documents, by: \.kind)
        let encounters = Set((byKind[.pokemonEncounters] ?? []).map(\.id))
        for kind in byKind.keys.sorted() where kind.isListed {
            let ordered = NameLookup.inListOrder(byKind[kind] ?? [])
            let found = NameLookup.index(ordered.map(\.name))
            var sharing: [String: [Int]] = [:]
            for (index, document) in ordered.enumerated() {
                guard let name = document.name else { continue }
                let winner = found[NameLookup.key(name)]
                if winner != index {
                    sharing[NameLookup.key(name), default: []].append(document.id)
                    continue
                }
                if let problem = Self.problem(with: name) {
                    notes.append("\(kind.apiName)/\(document.id): no name alias for \(Self.quoted(name)) (\(problem))")
                    continue
                }
                paths[kind.apiDataFile(id: document.id), default: []].append(kind.apiDataFile(key: name))
                if kind == .pokemon, encounters.contains(document.id) {
                    paths[ResourceKind.pokemonEncounters.apiDataFile(id: document.id), default: []]
                        .append(ResourceKind.pokemonEncounters.apiDataFile(key: name))
                }
            }
            for (key, losers) in sharing.sorted(by: { $0.key < $1.key }) {
                let winner = ordered[found[key]!]
                // A name left out is reported as such, not as an alias.
                guard Self.problem(with: winner.name ?? "") == nil else { continue }
                let others = losers.map(String.init).joined(separator: ", ")
                notes.append("\(kind.apiName) \(Self.quoted(winner.name ?? key)) is the name of \(others) and \(winner.id): "
                             + "its alias is \(winner.id), the document serve answers for it")
            }
        }
    }

    /// Why `name` cannot be one path segment of its own below `{kind}/`, or nil when it can.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "empty" }
        if name == "." || name == ".." { return "not a plain path segment" }
        if name.contains("/") { return "it holds a /" }
        if name.utf8.contains(0) { return "it holds a NUL" }
        if Int(name) != nil { return "a number, which would shadow an id" }
        if ["index.json", "index.json.gz"].contains(NameLookup.key(name)) { return "it would replace the list or its .gz" }
        // NAME_MAX on Linux and macOS.
        if name.utf8.count > 255 { return "longer than a file name may be" }
        return nil
    }

    /// Leaves out every alias whose file, or a folder on its way, is a path the export
    /// writes anyway (`written`, below `api/v2/`, with each file's `.gz` under `gzip`), or
    /// another alias's `.gz`: the export would fail on it, or one file would replace another.
    mutating func leaveOutCollisions(with written: [String], gzip: Bool) {
        var files = Set(written)
        for alias in paths.values.joined() { files.insert(alias) }
        if gzip { files.formUnion(files.map { $0 + ".gz" }) }
        for (target, aliases) in paths.sorted(by: { $0.key < $1.key }) {
            let kept = aliases.filter { alias in
                let segments = alias.split(separator: "/")
                let collides = (1..<segments.count).contains { files.contains(segments.prefix($0).joined(separator: "/")) }
                if collides { notes.append("\(target): no name alias \(alias) (a folder on its way is a file the export writes)") }
                return !collides
            }
            paths[target] = kept.isEmpty ? nil : kept
        }
    }

    /// `name` as a JSON string, so an empty one, a NUL or a line break reads plainly in a note.
    private static func quoted(_ name: String) -> String {
        "\"" + String(decoding: CanonicalJSON.canonicalStringContents(name), as: UTF8.self) + "\""
    }
}
