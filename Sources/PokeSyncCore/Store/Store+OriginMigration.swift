import Foundation
import PokeArchive
import PokeSQLite

extension Store {
    /// The meta key recording that stored documents follow the rule "any http(s) origin
    /// in front of `/api/v2/` is stripped" (<doc:PokeSyncCore/Sources#Ids-and-URLs>). Stores made before the rule may hold
    /// bodies that name the host a reverse proxy passed on (`http://127.0.0.1:8000/api/v2/...`).
    static let originRuleKey = "canonical_any_origin"

    /// Brings stores made before the any-origin rule to it, once, in one transaction:
    /// every stored body is canonicalized again; one that changes is stored under its new
    /// hash, and every version, validator and frontier row naming the old hash is pointed
    /// at the new one.
    ///
    /// Published versions are rewritten in place rather than a new version published: the
    /// change is no change of content (the same document, named from another host), and a
    /// version made of it alone would ship a delta of nothing but URLs. Stores made from
    /// pokeapi.co or a folder hold relative URLs already and are left byte for byte as
    /// they were. Bundles already built from a rewritten version keep their bytes until the
    /// next version replaces them.
    /// - Throws: `StoreError.corrupt` when a stored body cannot be read; `DatabaseError`.
    static func applyOriginRule(_ database: Database, display: String) throws {
        try runOnce(database, rule: originRuleKey) { database in
            let hashes = try database.rows("SELECT hash FROM documents", []) { $0.blob(0) }
            for old in hashes {
                guard let body = try storedBody(database, hash: old, display: display) else { continue }
                // Only bodies that name an origin before /api/v2/ can change: skip the scan otherwise.
                guard Self.mayNameOrigin(body),
                      let document = try? CanonicalJSON.canonicalize(body, stripPrefix: nil),
                      document.bytes != body else { continue }
                let new = SHA256.hash(document.bytes).bytes
                try database.run("""
                    INSERT OR IGNORE INTO documents(hash, size, body, sprite_refs)
                    SELECT ?1, ?2, ?3, sprite_refs FROM documents WHERE hash = ?4
                    """, [.blob(new), SQLValue(document.bytes.count),
                          .blob(try Zlib.compress(document.bytes, level: StoredDocument.compressionLevel)), .blob(old)])
                try database.run("UPDATE version_documents SET hash = ? WHERE hash = ?", [.blob(new), .blob(old)])
                try database.run("UPDATE validators SET hash = ? WHERE hash = ?", [.blob(new), .blob(old)])
                try database.run("UPDATE frontier SET hash = ? WHERE job = 'document' AND hash = ?", [.blob(new), .blob(old)])
                try database.run("DELETE FROM documents WHERE hash = ?", [.blob(old)])
            }
        }
    }

    /// True when some `/api/v2/` in `body` is not at the start of a string (a quote
    /// before it): something, maybe an origin, stands in front of it. Linear, a cheap pre-check.
    static func mayNameOrigin(_ body: [UInt8]) -> Bool {
        let needle = APIShape.rootPathBytes
        return body.withUnsafeBufferPointer { buffer in
            needle.withUnsafeBufferPointer { needle in
                guard let base = buffer.baseAddress, let first = needle.first, buffer.count >= needle.count else { return false }
                for at in 0...(buffer.count - needle.count) where base[at] == first
                    && memcmp(base + at, needle.baseAddress!, needle.count) == 0 && (at == 0 || base[at - 1] != 0x22) {
                    return true
                }
                return false
            }
        }
    }
}
