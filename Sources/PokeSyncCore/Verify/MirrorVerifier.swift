import Foundation
import PokeArchive

/// What `pokesync verify MIRROR` found.
public struct MirrorVerification: Sendable {
    public var versions = 0
    public var documents = 0
    public var spriteObjects = 0
    public var treeFiles = 0
    /// One line each, naming the document, object or file.
    public var problems: [String] = []
    public var isSound: Bool { problems.isEmpty }
}

/// Reads back everything a mirror folder holds and checks it against what the store
/// says: the SQLite file itself, every document of every retained version against its
/// SHA-256, every sprite object against its size and SHA-256, and the sprite tree
/// against the latest version. Reads only; safe while a sync runs.
public enum MirrorVerifier {
    /// - Throws: `StoreError` when there is no store or it cannot be opened at all.
    public static func verify(_ layout: MirrorLayout) throws -> MirrorVerification {
        let store = try Store(layout: layout, create: false, readOnly: true)
        return try store.snapshot { try verify(store, layout: layout) }
    }

    private static func verify(_ store: Store, layout: MirrorLayout) throws -> MirrorVerification {
        var result = MirrorVerification()
        let integrity = try store.read { database in try database.rows("PRAGMA quick_check", []) { $0.text(0) } }
        if integrity != ["ok"] {
            result.problems += integrity.prefix(10).map { "\(layout.display(layout.storeFile)): \($0)" }
        }
        let versions = try store.versions()
        result.versions = versions.count
        try verifyDocuments(store, into: &result)
        try verifySpriteObjects(store, layout: layout, into: &result)
        if let latest = versions.last { try verifyTree(store, layout: layout, version: latest.number, into: &result) }
        return result
    }

    private static func verifyDocuments(_ store: Store, into result: inout MirrorVerification) throws {
        let documents = try store.read { database in
            try database.rows("""
                SELECT hash, MIN(version), kind, id FROM version_documents GROUP BY hash ORDER BY kind, id
                """, []) { row in (SHA256Digest(bytes: row.blob(0)), row.int(1), row.text(2), row.int(3)) }
        }
        for (hash, version, kind, id) in documents {
            result.documents += 1
            guard let hash else {
                result.problems.append("\(kind)/\(id) of version \(version): not a SHA-256 in the store")
                continue
            }
            do { _ = try store.documentBody(hash) } catch {
                result.problems.append("\(kind)/\(id) of version \(version): \(error)")
            }
        }
    }

    private static func verifySpriteObjects(_ store: Store, layout: MirrorLayout, into result: inout MirrorVerification) throws {
        let objects = SpriteObjects(layout: layout)
        let sprites = try store.read { database in
            try database.rows("""
                SELECT s.hash, MIN(s.path), o.size FROM version_sprites s LEFT JOIN sprite_objects o ON o.hash = s.hash
                GROUP BY s.hash ORDER BY MIN(s.path)
                """, []) { row in (SHA256Digest(bytes: row.blob(0)), row.text(1), row.optionalInt(2)) }
        }
        for (hash, path, size) in sprites {
            result.spriteObjects += 1
            guard let hash, let size else {
                result.problems.append("sprite \(path): no object recorded in the store")
                continue
            }
            let file = objects.url(for: hash)
            guard let data = FileManager.default.contents(atPath: file.path) else {
                result.problems.append("sprite \(path): its object \(layout.display(file)) is missing")
                continue
            }
            if data.count != size {
                result.problems.append("sprite \(path): its object \(layout.display(file)) has \(data.count) bytes, not \(size)")
            } else if SHA256.hash(data) != hash {
                result.problems.append("sprite \(path): its object \(layout.display(file)) does not match its SHA-256")
            }
        }
    }

    private static func verifyTree(_ store: Store, layout: MirrorLayout, version: Int, into result: inout MirrorVerification) throws {
        let objects = SpriteObjects(layout: layout)
        var expected: [String: SHA256Digest] = [:]
        for sprite in try store.versionSprites(version) { expected[sprite.path] = sprite.hash }
        let root = layout.spritesFolder
        var seen = Set<String>()
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey])
        while let url = walker?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true { continue }
            let relative = String(url.path.dropFirst(root.path.count + 1))
            result.treeFiles += 1
            seen.insert(relative)
            guard let hash = expected[relative] else {
                result.problems.append("sprites/\(relative): not a sprite of version \(version)")
                continue
            }
            // A hard link to the (verified) object is the same bytes; anything else is hashed.
            if !SpriteTree.sameFile(url.path, objects.url(for: hash).path),
               FileManager.default.contents(atPath: url.path).map({ SHA256.hash($0) }) != hash {
                result.problems.append("sprites/\(relative): differs from version \(version)'s sprite")
            }
        }
        for path in expected.keys.sorted() where !seen.contains(path) {
            result.problems.append("sprites/\(path): missing from the sprite tree (version \(version))")
        }
    }
}
