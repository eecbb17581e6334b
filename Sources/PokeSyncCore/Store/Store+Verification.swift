import Foundation
import PokeArchive
import PokeSQLite

/// What `pokesync verify` reads of the store: the file's own check, and each distinct
/// document body and sprite object the retained versions name, once.
extension Store {
    /// SQLite's `quick_check` of the store file: `["ok"]` when sound, else its problems.
    func quickCheck() throws -> [String] {
        try read { database in try database.rows("PRAGMA quick_check", []) { $0.text(0) } }
    }

    /// One retained document body to check: its hash (nil when the stored value is not a
    /// SHA-256) and the first version, kind and id that name it.
    struct DocumentToVerify: Sendable {
        var hash: SHA256Digest?
        var version: Int
        var kind: String
        var id: Int
    }

    /// Every distinct document body the retained versions name, in kind and id order.
    func documentsToVerify() throws -> [DocumentToVerify] {
        try read { database in
            try database.rows("""
                SELECT hash, MIN(version), kind, id FROM version_documents GROUP BY hash ORDER BY kind, id
                """, []) { row in
                DocumentToVerify(hash: SHA256Digest(bytes: row.blob(0)), version: row.int(1), kind: row.text(2), id: row.int(3))
            }
        }
    }

    /// One sprite or cry object to check: its hash (nil when not a SHA-256), the first file
    /// that names it ("sprite pokemon/25.png", "cry pokemon/latest/25.ogg"), and its recorded size (nil when no object is recorded).
    struct SpriteObjectToVerify: Sendable {
        var hash: SHA256Digest?
        var path: String
        var size: Int?
    }

    /// Every distinct sprite object the retained versions name, in path order.
    func spriteObjectsToVerify() throws -> [SpriteObjectToVerify] {
        try read { database in
            try database.rows("""
                SELECT s.hash, MIN(s.path), o.size
                FROM (SELECT hash, 'sprite ' || path AS path FROM version_sprites
                      \(try Self.hasTable(database, "version_cries") ? "UNION ALL SELECT hash, 'cry ' || path FROM version_cries" : "")) s
                LEFT JOIN sprite_objects o ON o.hash = s.hash
                GROUP BY s.hash ORDER BY MIN(s.path)
                """, []) { row in
                SpriteObjectToVerify(hash: SHA256Digest(bytes: row.blob(0)), path: row.text(1), size: row.optionalInt(2))
            }
        }
    }
}
