import Foundation
import PokeArchive
import PokeSQLite

extension Store {
    /// "kind/id" → content hash, for every document of a version.
    func documentHashes(version: Int) throws -> [String: SHA256Digest] {
        try read { database in
            var hashes: [String: SHA256Digest] = [:]
            for (key, hash) in try database.rows("SELECT kind, id, hash FROM version_documents WHERE version = ?",
                                                 [SQLValue(version)], { row in
                (ResourceKind(rawValue: row.text(0)).documentKey(id: row.int(1)), row.blob(2))
            }) {
                hashes[key] = SHA256Digest(bytes: hash)
            }
            return hashes
        }
    }
}
