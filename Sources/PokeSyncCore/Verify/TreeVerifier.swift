import Foundation
import PokeArchive

/// Checks a tree of linked files (`sprites/` or `cries/`) against the state the store
/// records for it.
///
/// The tree lags the published version: a run publishes (one commit), then brings the
/// tree to the new version file by file, recording `sprite_tree_target` before it
/// starts and `sprite_tree_version` when done. So the tree is checked against the
/// version it records, and while a target is recorded, a file of either version is
/// right and none is missing yet. Verify reads the store before it walks the tree; a
/// run that moves the tree on in between is seen by reading the state again, and the
/// walk is repeated, so a sync running beside verify is never reported as damage.
struct TreeVerifier {
    let store: Store
    let layout: MirrorLayout
    var tree: LinkedTree = .sprites

    /// What the store says the tree holds.
    struct State: Equatable {
        var recorded: Int?
        var target: Int?
        var latest: Int?
    }

    func verify(into result: inout MirrorVerification) throws {
        for _ in 1...3 {
            let state = try readState()
            guard state.latest != nil else { return }
            let (files, problems) = try check(state)
            let stateAfter = try readState()
            if problems.isEmpty || stateAfter == state {
                result.treeFiles += files
                result.problems += problems
                result.notes += notes(state)
                return
            }
        }
        result.notes.append("the \(tree.noun) tree changed while it was read (a run is bringing it up to date); not checked, run verify again when it has finished")
    }

    private func readState() throws -> State {
        try store.snapshot {
            State(recorded: try store.meta(tree.recordedKey).flatMap { Int($0) },
                  target: try store.meta(tree.targetKey).flatMap { Int($0) },
                  latest: try store.latestVersion()?.number)
        }
    }

    private func notes(_ state: State) -> [String] {
        guard let latest = state.latest else { return [] }
        if let target = state.target {
            return ["the \(tree.noun) tree is part way from version \(state.recorded.map(String.init) ?? "none") to \(target) (a run is finishing it, or the next full or sync will)"]
        }
        if let recorded = state.recorded, recorded != latest {
            return ["the \(tree.noun) tree holds version \(recorded); the next full or sync places version \(latest)'s \(tree.folderName)"]
        }
        return []
    }

    /// Walks the tree once. - Returns: the files seen and the problems found.
    private func check(_ state: State) throws -> (Int, [String]) {
        let retained = Set(try store.versions().map(\.number))
        var versions = [state.recorded, state.target].compactMap { $0 }.filter { retained.contains($0) }
        if versions.isEmpty { versions = state.latest.map { [$0] } ?? [] }
        // Missing files are damage only when the tree is settled at one version.
        let settled = state.target == nil && versions.count == 1 && versions[0] == state.recorded
        var allowed: [String: Set<SHA256Digest>] = [:]
        var expected = Set<String>()
        for version in versions {
            for sprite in try store.versionFiles(tree, version) {
                allowed[sprite.path, default: []].insert(sprite.hash)
                if version == versions[0] { expected.insert(sprite.path) }
            }
        }
        let named = versions.map(String.init).joined(separator: " or ")
        let objects = SpriteObjects(layout: layout)
        let root = tree.folder(layout)
        let folder = tree.folderName
        var problems: [String] = []
        var seen = Set<String>()
        let files = TreeWalk.files(under: root.path)
        // The objects' inodes, read once (a tree file that is a hard link to its object is it).
        let identities = files.isEmpty ? [:] : TreeWalk.identities(under: objects.root.path)
        for file in files {
            let relative = file.relative
            seen.insert(relative)
            guard let hashes = allowed[relative] else {
                problems.append("\(folder)/\(relative): not a \(tree.noun) of version \(named)")
                continue
            }
            // A hard link to the (verified) object is the same bytes; anything else is hashed.
            if hashes.contains(where: { hash in
                identities[String(hash.hex.prefix(2)) + "/" + hash.hex].map { $0 == (file.device, file.inode) } ?? false
            }) {
                continue
            }
            let actual = FileManager.default.contents(atPath: root.path + "/" + relative).map { SHA256.hash($0) }
            if actual.map({ !hashes.contains($0) }) ?? true {
                problems.append("\(folder)/\(relative): differs from version \(named)'s \(tree.noun)")
            }
        }
        if settled, let version = versions.first {
            for path in expected.sorted() where !seen.contains(path) {
                problems.append("\(folder)/\(path): missing from the \(tree.noun) tree (version \(version))")
            }
        }
        return (seen.count, problems)
    }
}
