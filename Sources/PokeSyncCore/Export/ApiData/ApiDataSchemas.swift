import Foundation
import PokeLocking

/// One file of an api-data export's `schema/v2/`.
package struct ApiDataSchemaFile: Sendable, Equatable {
    /// Relative to `schema/v2/`: `pokemon/$id/index.json`, `pokemon/index.json`,
    /// `index.json`, `named_api_resource.json`.
    package var path: String
    /// The schema as minified JSON (members in no particular order): the same JSON
    /// value as ditto's file, for the pretty-printer to write in upstream's form.
    package var json: [UInt8]

    package init(path: String, json: [UInt8]) {
        self.path = path
        self.json = json
    }
}

/// `ditto analyze` for a tree being exported: the exporter hands over each document's
/// canonical bytes as it writes them, and gets every schema file at the end, so the
/// schemas cost one pass over bytes already in memory instead of a re-read of the tree.
///
/// Thread-safe. Documents are grouped by pattern, each group learned by its own
/// builder, so patterns proceed in parallel. A thread adding to a pattern that another
/// thread is adding to at that moment gets a second builder of that pattern (merged at
/// the end), so no add waits for another's parse; documents of one pattern added from
/// one thread at a time all go to one builder, in the order given, which makes the
/// result deterministic (see `SchemaInference.swift` for `anyOf` order).
package final class ApiDataSchemaInference: Sendable {
    // @unchecked Sendable: a builder (not Sendable) is used by one thread at a time: taken
    // out of `idle` under the lock, put back under it once its add is done; `all` is read
    // only when every add has returned.
    private struct Group: @unchecked Sendable {
        /// Builders not in use, to hand to the next add.
        var idle: [SchemaInferenceBuilder] = []
        /// Every builder of the pattern, in creation order.
        var all: [SchemaInferenceBuilder] = []
    }

    private let groups = Locked<[String: Group]>([:])

    package init() {}

    /// The pattern ditto gives a path under `api/v2/`: each part made only of ASCII
    /// digits becomes `$id` (`pokemon/25/encounters/index.json` →
    /// `pokemon/$id/encounters/index.json`; `move-ailment/-1/index.json` stays).
    package static func pattern(of path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            !part.isEmpty && part.utf8.allSatisfy { (0x30...0x39).contains($0) } ? "$id" : String(part)
        }.joined(separator: "/")
    }

    /// Learns from one document.
    /// - Parameters:
    ///   - document: its canonical JSON bytes (`CanonicalJSON`), relative URLs or not
    ///     (values do not matter, only types).
    ///   - path: the file's path under `api/v2/`: `pokemon/25/index.json`,
    ///     `pokemon/index.json` (a list), `index.json` (the root), `meta/index.json`.
    ///     A path already in pattern form (`pokemon/$id/index.json`) is taken as is.
    /// - Throws: `JSONSyntaxError` when the bytes are not one JSON value; the schemas
    ///   are then incomplete and the export should fail.
    package func add(_ document: some ContiguousBytes, path: String) throws(JSONSyntaxError) {
        let pattern = Self.pattern(of: path)
        let builder = groups.withLock { groups in
            if let idle = groups[pattern]?.idle.popLast() { return idle }
            let created = SchemaInferenceBuilder()
            groups[pattern, default: Group()].all.append(created)
            return created
        }
        defer { groups.withLock { $0[pattern]?.idle.append(builder) } }
        try builder.add(document)
    }

    /// Documents added so far, by pattern.
    package var documentCounts: [String: Int] {
        groups.withLock { $0.mapValues { $0.all.reduce(0) { $0 + $1.documentCount } } }
    }

    /// Every schema file, sorted by path: one per pattern seen, then ditto's 15 common
    /// models. Call once every `add` has returned.
    ///
    /// A pattern's schema covers the documents its glob matches, as in ditto: its own,
    /// and those of more specific patterns that have a literal part where it has `$id`
    /// (`move-ailment/-1/index.json` in `move-ailment/$id/index.json`), merged after.
    package func files() -> [ApiDataSchemaFile] {
        let byPattern = groups.withLock { $0.mapValues(\.all) }
        var own: [String: SchemaInferenceBuilder] = [:]
        for (pattern, builders) in byPattern {
            own[pattern] = builders.count == 1 ? builders[0] : Self.merged(builders)
        }
        let patterns = own.keys.sorted()
        let parts = Dictionary(uniqueKeysWithValues: patterns.map {
            ($0, $0.split(separator: "/", omittingEmptySubsequences: false))
        })
        var files: [ApiDataSchemaFile] = []
        for pattern in patterns {
            let others = patterns.filter { $0 != pattern && Self.glob(parts[pattern]!, matches: parts[$0]!) }
            let builder = others.isEmpty ? own[pattern]! : Self.merged([own[pattern]!] + others.map { own[$0]! })
            let schema = CommonSchemas.replacingCommonModels(in: builder.schema())
            files.append(ApiDataSchemaFile(path: pattern, json: schema.jsonBytes))
        }
        for (path, schema) in CommonSchemas.files() {
            files.append(ApiDataSchemaFile(path: path, json: schema.jsonBytes))
        }
        return files.sorted { $0.path < $1.path }
    }

    /// A new builder holding what `builders` learned, in their order.
    private static func merged(_ builders: [SchemaInferenceBuilder]) -> SchemaInferenceBuilder {
        let result = SchemaInferenceBuilder()
        for builder in builders { result.merge(builder) }
        return result
    }

    /// Whether ditto's glob of `pattern` (each `$id` as `*`, which matches any name
    /// not starting with `.`) matches the files of pattern `other`.
    private static func glob(_ pattern: [Substring], matches other: [Substring]) -> Bool {
        guard pattern.count == other.count else { return false }
        return zip(pattern, other).allSatisfy { mine, theirs in
            mine == "$id" ? !theirs.hasPrefix(".") : mine == theirs
        }
    }
}
