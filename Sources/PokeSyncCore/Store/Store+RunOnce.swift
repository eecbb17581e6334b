import Foundation
import PokeArchive
import PokeSQLite

extension Store {
    /// Brings a store made before a rule to it, once: unless `meta` records `rule`, runs
    /// `change` and records `rule` in one transaction, so a run killed part way leaves the
    /// store as it was and the next run starts the change again. The store migrations whose
    /// work is a pass over stored bodies (`applyOriginRule`, `collectLinks`) go through here;
    /// schema changes are `migrate`'s.
    /// - Throws: what `change` throws; `DatabaseError`.
    static func runOnce(_ database: Database, rule: String, _ change: (Database) throws -> Void) throws {
        guard try database.row("SELECT value FROM meta WHERE key = ?", [.text(rule)], { $0.text(0) }) == nil else {
            return
        }
        try database.transaction { database in
            try change(database)
            try database.run("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", [.text(rule)])
        }
    }

    /// The inflated body of the stored document `hash`, nil when the store has no such row.
    /// - Throws: `StoreError.corrupt` naming the document when its body does not inflate;
    ///   `DatabaseError`.
    static func storedBody(_ database: Database, hash: [UInt8], display: String) throws -> [UInt8]? {
        guard let (size, compressed) = try database.row(
            "SELECT size, body FROM documents WHERE hash = ?", [.blob(hash)], { ($0.int(0), $0.blob(1)) }) else { return nil }
        do { return try Zlib.decompress(compressed, limit: size) } catch {
            throw StoreError.corrupt(display, "document \(SHA256Digest(bytes: hash)?.hex ?? "?"): \(error)")
        }
    }
}
