import Foundation
import PokeArchive
import PokeSQLite

/// What `prune` removed.
package struct PruneResult: Sendable {
    package var removedVersions: [Int]
    package var freedDocuments: Int
    package var freedSprites: Int
    package var bytesBefore: Int
    package var bytesAfter: Int
    /// Why the store could not be compacted afterwards, if it could not.
    package var compactingError: String?
}

extension Store {
    /// Drops all but the newest `keep` versions, then the documents, sprite objects
    /// and validators no retained version and no unfinished run needs, and compacts
    /// the file. The latest version is always kept.
    /// - Throws: `RequestError` when `keep` < 1; store and file errors.
    package func prune(keep: Int) throws -> PruneResult {
        guard keep >= 1 else { throw RequestError.keepBelowOne }
        let before = Self.fileSize(layout.storeFile)
        let (removed, freedDocuments, freedSprites) = try write { database in
            let numbers = try database.rows("SELECT number FROM versions ORDER BY number DESC", []) { $0.int(0) }
            let removed = Array(numbers.dropFirst(keep)).sorted()
            for number in removed {
                for table in ["version_documents", "version_sprites", "version_cries", "version_cry_sets", "sprite_reports",
                              "version_kinds", "version_carried"] {
                    try database.run("DELETE FROM \(table) WHERE version = ?", [SQLValue(number)])
                }
                try database.run("DELETE FROM versions WHERE number = ?", [SQLValue(number)])
            }
            // An interrupted run's frontier names content that is not in any version yet: keep it.
            try database.run("""
                DELETE FROM documents WHERE hash NOT IN (SELECT hash FROM version_documents)
                  AND hash NOT IN (SELECT hash FROM frontier WHERE job = 'document' AND hash IS NOT NULL)
                """)
            let freedDocuments = database.changes
            // RETURNING names the rows as they go, for unlinking their files after the commit.
            let orphans = try database.rows("""
                DELETE FROM sprite_objects WHERE hash NOT IN (SELECT hash FROM version_sprites)
                  AND hash NOT IN (SELECT hash FROM version_cries)
                  AND hash NOT IN (SELECT hash FROM frontier WHERE job IN \(LinkedTree.jobsSQL) AND hash IS NOT NULL)
                RETURNING hash
                """, []) { $0.blob(0) }
            // Validators for content that is gone would make a 304 point at nothing.
            try database.run("""
                DELETE FROM validators WHERE hash NOT IN (SELECT hash FROM documents)
                  AND hash NOT IN (SELECT hash FROM sprite_objects)
                """)
            return (removed, freedDocuments, orphans.compactMap { SHA256Digest(bytes: $0) })
        }
        // Files go only after the commit: a crash before this leaves unreferenced
        // files (harmless), never a version pointing at a missing file.
        let objects = SpriteObjects(layout: layout)
        for hash in freedSprites { unlink(objects.url(for: hash).path) }
        // The prune is done and committed; compacting is a bonus that may fail (a reader
        // holds the file, the disk lacks room for the copy VACUUM makes).
        var compactingError: String?
        do {
            try outsideTransaction { database in
                try database.execute("PRAGMA wal_checkpoint(TRUNCATE); VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")
            }
        } catch {
            compactingError = "\(error)"
        }
        return PruneResult(removedVersions: removed, freedDocuments: freedDocuments, freedSprites: freedSprites.count,
                           bytesBefore: before, bytesAfter: Self.fileSize(layout.storeFile), compactingError: compactingError)
    }

    static func fileSize(_ url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }
}
