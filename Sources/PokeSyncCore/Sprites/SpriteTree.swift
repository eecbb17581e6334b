import Foundation

/// The latest version's sprites at `sprites/<path>` (or cries at `cries/<path>`), as
/// hard links to the objects (no bytes stored twice). Each file appears whole: it is
/// linked under a scratch name, then renamed into place.
package struct SpriteTree: Sendable {
    package let root: URL
    package let tree: LinkedTree
    let objects: SpriteObjects
    let scratch: URL

    package init(layout: MirrorLayout, tree: LinkedTree = .sprites) {
        root = tree.folder(layout)
        self.tree = tree
        objects = SpriteObjects(layout: layout)
        scratch = layout.scratchFolder
    }

    /// Every tree of the mirror, sprites first.
    package static func all(layout: MirrorLayout) -> [SpriteTree] {
        LinkedTree.allCases.map { SpriteTree(layout: layout, tree: $0) }
    }

    /// Makes the tree hold exactly the sprites of `version`, then records that in the
    /// store, so a crash part way is repaired by the next run (`repairIfNeeded`).
    /// - Returns: the sprites that could not be placed, with why; the version is then
    ///   not recorded as materialized, and the next run tries again.
    /// - Throws: `LocalFileError` (74) when the tree's own folders cannot be made.
    @discardableResult
    package func materialize(version: Int, store: Store) throws -> [String] {
        let wanted = try store.versionFiles(tree, version)
        // A tree the mirror never held (no cries asked for) is not made as an empty folder.
        if wanted.isEmpty, !FileManager.default.fileExists(atPath: root.path) {
            try store.recordTree(tree, version: version)
            return []
        }
        // Recorded before the tree is touched: until the version is recorded below, the
        // tree is part way between the two, and `verify` accepts the files of either.
        try store.setMeta(tree.targetKey, String(version))
        try FileSystem.createDirectory(root)
        try FileSystem.createDirectory(scratch)
        // Old entries go first: a path that was a file may be a folder now, or the reverse.
        removeUnwanted(Set(wanted.map(\.path)))
        var unplaced: [String] = []
        for sprite in wanted {
            let target = root.appendingPathComponent(sprite.path)
            let object = objects.url(for: sprite.hash)
            if Self.sameFile(target.path, object.path) { continue }
            guard FileManager.default.fileExists(atPath: object.path) else {
                unplaced.append("\(sprite.path): its object \(sprite.hash.hex) is missing")
                continue
            }
            do {
                try FileSystem.createDirectory(target.deletingLastPathComponent())
                try place(object: object, at: target)
            } catch let error as LocalFileError {
                unplaced.append("\(sprite.path): \(error.reason)")
            }
        }
        FileSystem.flush(root)
        if unplaced.isEmpty { try store.recordTree(tree, version: version) }
        return unplaced
    }

    /// Re-materializes the tree when a crash (or a failure) left it behind the latest version.
    package func repairIfNeeded(store: Store) throws -> [String] {
        guard let latest = try store.latestVersion(),
              try store.meta(tree.recordedKey) != String(latest.number) else { return [] }
        return try materialize(version: latest.number, store: store)
    }

    private func place(object: URL, at target: URL) throws {
        let temporary = scratch.appendingPathComponent(UUID().uuidString)
        if link(object.path, temporary.path) != 0 {
            // No hard links here (another file system): fall back to a copy.
            do { try FileManager.default.copyItem(at: object, to: temporary) } catch {
                throw LocalFileError(path: target.path, reason: "cannot place sprite: \(FileSystem.reason(error))")
            }
        }
        guard rename(temporary.path, target.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw LocalFileError(path: target.path, errno: code)
        }
    }

    private func removeUnwanted(_ keep: Set<String>) {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { return }
        var folders: [URL] = []
        let prefix = root.path + "/"
        for case let url as URL in walker {
            let isFolder = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            if isFolder { folders.append(url); continue }
            let relative = String(url.path.dropFirst(prefix.count))
            if !keep.contains(relative) { unlink(url.path) }
        }
        // Deepest first, so emptied parents go too; rmdir fails harmlessly on non-empty ones.
        for folder in folders.sorted(by: { $0.path.count > $1.path.count }) { rmdir(folder.path) }
    }

    static func sameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_ino == b.st_ino && a.st_dev == b.st_dev
    }
}
