import Foundation
import PokeSQLite

/// The store's `meta` table: small facts about the mirror (lineage, the sprite tree's
/// version). A `pending_diff` row left by an older build is ignored.
extension Store {
    package func meta(_ key: String) throws -> String? {
        try read { database in try database.row("SELECT value FROM meta WHERE key = ?", [.text(key)]) { $0.text(0) } }
    }

    /// `tree` holds exactly `version` now, in one commit with the target gone.
    func recordTree(_ tree: LinkedTree, version: Int) throws {
        try write { database in
            try database.run("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [.text(tree.recordedKey), .text(String(version))])
            try database.run("DELETE FROM meta WHERE key = ?", [.text(tree.targetKey)])
        }
    }

    package func setMeta(_ key: String, _ value: String?) throws {
        try write { database in
            if let value {
                try database.run("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [.text(key), .text(value)])
            } else {
                try database.run("DELETE FROM meta WHERE key = ?", [.text(key)])
            }
        }
    }
}
