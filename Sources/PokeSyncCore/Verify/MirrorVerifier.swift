import Foundation
import PokeArchive
import PokeLocking

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
    /// Runs `check` over `items` on every core (hashing is most of a verify), a share
    /// each; the problems found, in the items' order.
    static func onEveryCore<Item: Sendable>(_ items: [Item], _ check: @escaping @Sendable (Item) -> String?) -> [String] {
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8, items.count))
        let share = (items.count + workers - 1) / workers
        let found = Locked([[String]](repeating: [], count: workers))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let problems = items[min(items.count, worker * share) ..< min(items.count, (worker + 1) * share)].compactMap(check)
            found.withLock { $0[worker] = problems }
        }
        return found.withLock { $0.flatMap { $0 } }
    }

    /// - Throws: `StoreError` when there is no store or it cannot be opened at all.
    package static func verify(_ layout: MirrorLayout) throws -> MirrorVerification {
        let store = try Store(layout: layout, create: false, readOnly: true)
        // The trees have their own snapshots (they change after the store does, see
        // TreeVerifier), on a connection of their own, checked beside the store's hashing.
        let treeStore = try Store(layout: layout, create: false, readOnly: true)
        let trees = Locked<Result<MirrorVerification, any Error>>(.success(MirrorVerification()))
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let outcome = Result {
                var partial = MirrorVerification()
                for tree in LinkedTree.allCases {
                    try TreeVerifier(store: treeStore, layout: layout, tree: tree).verify(into: &partial)
                }
                return partial
            }
            trees.withLock { $0 = outcome }
        }
        defer { group.wait() }
        var result = try store.snapshot { try verify(store, layout: layout) }
        group.wait()
        let partial = try trees.withLock { $0 }.get()
        result.treeFiles += partial.treeFiles
        result.problems += partial.problems
        result.notes += partial.notes
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
        result.documents += documents.count
        result.problems += onEveryCore(documents) { document in
            let name = "\(document.kind)/\(document.id) of version \(document.version)"
            guard let hash = document.hash else { return "\(name): not a SHA-256 in the store" }
            do { _ = try store.documentBody(hash) } catch {
                return "\(name): \(error)"
            }
            return nil
        }
    }

    private static func verifySpriteObjects(_ store: Store, layout: MirrorLayout, into result: inout MirrorVerification) throws {
        let objects = SpriteObjects(layout: layout)
        let sprites = try store.spriteObjectsToVerify()
        result.spriteObjects += sprites.count
        result.problems += onEveryCore(sprites) { sprite in
            let path = sprite.path
            guard let hash = sprite.hash, let size = sprite.size else { return "\(path): no object recorded in the store" }
            let file = objects.path(for: hash)
            let name = { layout.display(URL(fileURLWithPath: file)) }
            guard let data = FileManager.default.contents(atPath: file) else { return "\(path): its object \(name()) is missing" }
            if data.count != size { return "\(path): its object \(name()) has \(data.count) bytes, not \(size)" }
            if SHA256.hash(data) != hash { return "\(path): its object \(name()) does not match its SHA-256" }
            return nil
        }
    }
}
