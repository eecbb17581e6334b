import Foundation
import PokeArchive

/// What `pokesync verify MIRROR` found.
package struct MirrorVerification: Sendable {
    package var versions = 0
    package var documents = 0
    package var spriteObjects = 0
    package var treeFiles = 0
    /// One line each, naming the document, object or file.
    package var problems: [String] = []
    /// What is not damage but worth knowing (a sprite tree a run is still bringing up to date).
    package var notes: [String] = []
    package var isSound: Bool { problems.isEmpty }
}

/// Reads back everything a mirror folder holds and checks it against what the store
/// says: the SQLite file itself, every document of every retained version against its
/// SHA-256, every sprite object against its size and SHA-256, and the sprite tree
/// against the version it records (`TreeVerifier`). Reads only; safe while a sync runs.
package enum MirrorVerifier {
    /// - Throws: `StoreError` when there is no store or it cannot be opened at all.
    package static func verify(_ layout: MirrorLayout) throws -> MirrorVerification {
        let store = try Store(layout: layout, create: false, readOnly: true)
        var result = try store.snapshot { try verify(store, layout: layout) }
        // The tree has its own snapshots: it changes after the store does (see TreeVerifier).
        for tree in LinkedTree.allCases {
            try TreeVerifier(store: store, layout: layout, tree: tree).verify(into: &result)
        }
        return result
    }

    private static func verify(_ store: Store, layout: MirrorLayout) throws -> MirrorVerification {
        var result = MirrorVerification()
        let integrity = try store.quickCheck()
        if integrity != ["ok"] {
            result.problems += integrity.prefix(10).map { "\(layout.display(layout.storeFile)): \($0)" }
        }
        let versions = try store.versions()
        result.versions = versions.count
        try verifyDocuments(store, into: &result)
        try verifySpriteObjects(store, layout: layout, into: &result)
        return result
    }

    private static func verifyDocuments(_ store: Store, into result: inout MirrorVerification) throws {
        let documents = try store.documentsToVerify()
        for document in documents {
            result.documents += 1
            let name = "\(document.kind)/\(document.id) of version \(document.version)"
            guard let hash = document.hash else {
                result.problems.append("\(name): not a SHA-256 in the store")
                continue
            }
            do { _ = try store.documentBody(hash) } catch {
                result.problems.append("\(name): \(error)")
            }
        }
    }

    private static func verifySpriteObjects(_ store: Store, layout: MirrorLayout, into result: inout MirrorVerification) throws {
        let objects = SpriteObjects(layout: layout)
        let sprites = try store.spriteObjectsToVerify()
        for sprite in sprites {
            let path = sprite.path
            result.spriteObjects += 1
            guard let hash = sprite.hash, let size = sprite.size else {
                result.problems.append("\(path): no object recorded in the store")
                continue
            }
            let file = URL(fileURLWithPath: objects.path(for: hash))
            guard let data = FileManager.default.contents(atPath: file.path) else {
                result.problems.append("\(path): its object \(layout.display(file)) is missing")
                continue
            }
            if data.count != size {
                result.problems.append("\(path): its object \(layout.display(file)) has \(data.count) bytes, not \(size)")
            } else if SHA256.hash(data) != hash {
                result.problems.append("\(path): its object \(layout.display(file)) does not match its SHA-256")
            }
        }
    }
}
