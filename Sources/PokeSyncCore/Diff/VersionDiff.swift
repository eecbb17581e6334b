import Foundation

/// What changed from one version to another, in the format of `pokesync diff --json`.
package struct VersionDiff: Sendable, Equatable {
    package struct Counts: Sendable, Equatable {
        package var added = 0
        package var removed = 0
        package var changed = 0
        package var total: Int { added + removed + changed }
        package init() {}
    }

    package enum ChangeKind: String, Sendable {
        case added, removed, changed
    }

    package struct Change: Sendable, Equatable {
        package var kind: ResourceKind
        package var id: Int
        /// nil for evolution chains, which have no name.
        package var name: String?
        package var change: ChangeKind
        /// JSON Pointers of the top-most members that differ; only for `changed`.
        package var paths: [String]
    }

    /// A linked file added, removed or changed, named by its tree and its path there.
    package struct FileChange: Sendable, Equatable {
        package var tree: LinkedTree
        package var path: String
        package var change: ChangeKind
    }

    package var from: Int
    package var to: Int
    package var summary: [ResourceKind: Counts]
    package var sprites: Counts
    package var cries = Counts()
    package var changes: [Change]
    /// Every linked file that differs, sprites then cries, each in path order.
    package var files: [FileChange] = []
    /// Linked files `to` carried from the version before because their host failed or lost
    /// them (404/410 while a document still links them), and those it left out, never held,
    /// by tree and host: kept, not changes, but said.
    package var carried: [CarriedFiles] = []

    package var isEmpty: Bool { changes.isEmpty && sprites.total == 0 && cries.total == 0 && carried.isEmpty }
}

extension VersionDiff {
    /// Compares two retained versions of `store`.
    /// - Throws: `StoreError` when a version's documents cannot be read.
    package static func compute(store: Store, from: Int, to: Int) throws -> VersionDiff {
        let old = Dictionary(try store.documents(version: from).map { ($0.kind.documentKey(id: $0.id), $0) },
                             uniquingKeysWith: { first, _ in first })
        let new = try store.documents(version: to)
        // Every kind of either version has its counts, changed or not.
        let kinds = Set(old.values.map(\.kind)).union(new.map(\.kind))
        var summary = Dictionary(uniqueKeysWithValues: kinds.map { ($0, Counts()) })
        var changes: [Change] = []
        var seen = Set<String>()
        for document in new {
            let key = document.kind.documentKey(id: document.id)
            seen.insert(key)
            guard let before = old[key] else {
                summary[document.kind]!.added += 1
                changes.append(Change(kind: document.kind, id: document.id, name: document.name, change: .added, paths: []))
                continue
            }
            guard before.hash != document.hash else { continue }
            // Different bytes may still be equal JSON: only differing members count.
            let paths = DocumentDiff.changedPaths(try store.documentBody(before.hash), try store.documentBody(document.hash))
            guard !paths.isEmpty else { continue }
            summary[document.kind]!.changed += 1
            changes.append(Change(kind: document.kind, id: document.id, name: document.name, change: .changed, paths: paths))
        }
        for (key, document) in old where !seen.contains(key) {
            summary[document.kind]!.removed += 1
            changes.append(Change(kind: document.kind, id: document.id, name: document.name, change: .removed, paths: []))
        }
        changes.sort { ($0.kind, $0.id) < ($1.kind, $1.id) }

        var diff = VersionDiff(from: from, to: to, summary: summary, sprites: Counts(), changes: changes)
        for tree in LinkedTree.allCases {
            let (counts, files) = try fileChanges(store: store, tree: tree, from: from, to: to)
            if tree == .sprites { diff.sprites = counts } else { diff.cries = counts }
            diff.files += files
        }
        diff.carried = try store.carriedFiles(version: to)
        return diff
    }

    /// The files of `tree` that differ between two versions, counted and named.
    static func fileChanges(store: Store, tree: LinkedTree, from: Int, to: Int) throws -> (Counts, [FileChange]) {
        let old = Dictionary(try store.versionFiles(tree, from).map { ($0.path, $0.hash) }, uniquingKeysWith: { a, _ in a })
        let new = Dictionary(try store.versionFiles(tree, to).map { ($0.path, $0.hash) }, uniquingKeysWith: { a, _ in a })
        var counts = Counts()
        var files: [FileChange] = []
        for (path, hash) in new {
            if let before = old[path] {
                if before != hash {
                    counts.changed += 1
                    files.append(FileChange(tree: tree, path: path, change: .changed))
                }
            } else {
                counts.added += 1
                files.append(FileChange(tree: tree, path: path, change: .added))
            }
        }
        for path in old.keys where new[path] == nil {
            counts.removed += 1
            files.append(FileChange(tree: tree, path: path, change: .removed))
        }
        files.sort { $0.path < $1.path }
        return (counts, files)
    }

    /// The `--json` form: `{from, to, summary, changes}` as <doc:PokeSyncCore/VersionsAndDiffs#The-diff-JSON> gives it.
    package func jsonData() throws -> Data {
        try BundleJSON.data(JSONForm(self))
    }

    /// The terminal form: grouped by kind, counts first, then names.
    /// - Parameter limit: names shown per kind and change before "... and N more".
    package func text(limit: Int = 25) -> String {
        var lines = ["version \(from) → \(to)"]
        if isEmpty { return lines[0] + ": no changes" }
        // Names line up: 16 columns as before, wider for the whole API's longer names.
        let width = max(16, summary.keys.map(\.apiName.count).max() ?? 0)
        for kind in summary.keys.sorted() {
            let counts = summary[kind] ?? Counts()
            lines.append("\(kind.apiName.padding(toLength: width, withPad: " ", startingAt: 0)) "
                         + "\(counts.added) added, \(counts.removed) removed, \(counts.changed) changed")
            for change in [ChangeKind.added, .removed, .changed] {
                let ofKind = changes.filter { $0.kind == kind && $0.change == change }
                for entry in ofKind.prefix(limit) {
                    var line = "  \(symbol(change)) " + (entry.name.map { "\($0) (\(entry.id))" } ?? "#\(entry.id)")
                    if change == .changed { line += ": " + entry.paths.joined(separator: ", ") }
                    lines.append(line)
                }
                if ofKind.count > limit { lines.append("    ... and \(ofKind.count - limit) more \(change.rawValue) (--json lists all)") }
            }
        }
        for tree in LinkedTree.allCases {
            let counts = tree == .sprites ? sprites : cries
            // A mirror without cries says nothing of them.
            if tree == .cries && counts.total == 0 { continue }
            lines.append("\(tree.folderName.padding(toLength: 16, withPad: " ", startingAt: 0)) "
                         + "\(counts.added) added, \(counts.removed) removed, \(counts.changed) changed")
            for change in [ChangeKind.added, .removed, .changed] {
                let ofTree = files.filter { $0.tree == tree && $0.change == change }
                for file in ofTree.prefix(limit) { lines.append("  \(symbol(change)) \(tree.folderName)/\(file.path)") }
                if ofTree.count > limit { lines.append("    ... and \(ofTree.count - limit) more \(change.rawValue) (--json lists all)") }
            }
        }
        for entry in carried { lines.append("carried          " + entry.line) }
        return lines.joined(separator: "\n")
    }

    private func symbol(_ change: ChangeKind) -> String {
        switch change {
        case .added: return "+"
        case .removed: return "-"
        case .changed: return "~"
        }
    }

    /// `diffs/FROM-TO`, without its `.json` or `.txt` extension.
    static func fileBase(from: Int, to: Int, layout: MirrorLayout) -> URL {
        layout.diffsFolder.appendingPathComponent("\(from)-\(to)")
    }

    /// True when both files of the diff from `from` to `to` are in `diffs/` and were
    /// written after `to` was published: a file of that name from before (an earlier
    /// mirror in the same folder, rebuilt from version 1) is another diff.
    static func isWritten(from: Int, to: Int, publishedAt: String, layout: MirrorLayout) -> Bool {
        let base = fileBase(from: from, to: to, layout: layout)
        let published = ISO8601DateFormatter().date(from: publishedAt) ?? .distantFuture
        return ["json", "txt"].allSatisfy { ext in
            let attributes = try? FileManager.default.attributesOfItem(atPath: base.appendingPathExtension(ext).path)
            return (attributes?[.modificationDate] as? Date).map { $0 >= published } ?? false
        }
    }

    /// Removes the diff files that end at a version not in `retained` (pruned: nothing to
    /// compare them with). Every such file, not only this prune's: a prune killed before
    /// it got here leaves them, and the next one removes them.
    static func removeFiles(endingOutside retained: Set<Int>, layout: MirrorLayout) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.diffsFolder.path)) ?? [] {
            let stem = name.split(separator: ".").first ?? ""
            if let to = stem.split(separator: "-").last.flatMap({ Int($0) }), !retained.contains(to) {
                unlink(layout.diffsFolder.appendingPathComponent(name).path)
            }
        }
    }

    /// Writes `diffs/FROM-TO.json` and `diffs/FROM-TO.txt` for the nightly job to mail or
    /// log; the `.txt` last, so that both being there means the diff is written.
    package func write(to layout: MirrorLayout) throws -> URL {
        try FileSystem.createDirectory(layout.diffsFolder)
        let base = Self.fileBase(from: from, to: to, layout: layout)
        try FileSystem.writeAtomically([UInt8](try jsonData()), to: base.appendingPathExtension("json"), scratch: layout.scratchFolder)
        try FileSystem.writeAtomically(Array((text(limit: 200) + "\n").utf8), to: base.appendingPathExtension("txt"),
                                       scratch: layout.scratchFolder)
        return base.appendingPathExtension("json")
    }
}
