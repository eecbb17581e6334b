import Foundation

extension VersionDiff {
    /// `pokesync diff --json` and `diffs/FROM-TO.json`, field for field as <doc:PokeSyncCore/VersionsAndDiffs#The-diff-JSON> gives them.
    struct JSONForm: Encodable {
        struct Counts: Encodable {
            var added, removed, changed: Int
            init(_ counts: VersionDiff.Counts) { (added, removed, changed) = (counts.added, counts.removed, counts.changed) }
        }

        struct Change: Encodable {
            var kind: String
            var id: Int
            /// null for evolution chains, which have no name.
            var name: String?
            var change: String
            /// Only for `changed`.
            var paths: [String]?

            enum CodingKeys: String, CodingKey { case kind, id, name, change, paths }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(kind, forKey: .kind)
                try container.encode(id, forKey: .id)
                try container.encode(name, forKey: .name)  // null, not left out
                try container.encode(change, forKey: .change)
                try container.encodeIfPresent(paths, forKey: .paths)
            }
        }

        /// A linked file that differs: `{"tree": "cries", "path": "pokemon/latest/25.ogg", "change": "changed"}`.
        struct File: Encodable {
            var tree: String
            var path: String
            var change: String
        }

        /// Linked files carried from the version before (their host failed, or answered 404/410
        /// for `missing` of them), by tree and host:
        /// `{"tree": "cries", "host": "127.0.0.1:8081", "carried": 1302, "missing": 0, "postponed": 0, "example": "..."}`.
        struct Carried: Encodable {
            var tree: String
            var host: String
            var carried: Int
            var missing: Int
            var postponed: Int
            var example: String
        }

        var from: Int
        var to: Int
        /// Each kind's API name, `sprites` and `cries`, to its counts.
        var summary: [String: Counts]
        var changes: [Change]
        var files: [File]
        var carried: [Carried]

        init(_ diff: VersionDiff) {
            from = diff.from
            to = diff.to
            summary = Dictionary(uniqueKeysWithValues: diff.summary.map { ($0.key.apiName, Counts($0.value)) })
            summary["sprites"] = Counts(diff.sprites)
            summary["cries"] = Counts(diff.cries)
            carried = diff.carried.map {
                Carried(tree: $0.tree.folderName, host: $0.host, carried: $0.carried, missing: $0.missing,
                        postponed: $0.postponed, example: $0.example)
            }
            files = diff.files.map { File(tree: $0.tree.folderName, path: $0.path, change: $0.change.rawValue) }
            changes = diff.changes.map {
                Change(kind: $0.kind.apiName, id: $0.id, name: $0.name, change: $0.change.rawValue,
                       paths: $0.change == .changed ? $0.paths : nil)
            }
        }
    }
}
