import Foundation
import PokeSQLite

/// What a version holds of the cries tree: the `--cries` set it was made with and its files.
extension Store {
    /// Version `number`'s `--cries` and `--cry-source`; nil for a version made before
    /// cries were mirrored (it holds none), or a store not migrated yet (opened read-only).
    package func versionCrySet(_ number: Int) throws -> (selection: CrySet, source: String?)? {
        let row = try read { database -> (String, String?)? in
            guard try Self.hasTable(database, "version_cry_sets") else { return nil }
            return try database.row("SELECT selection, source FROM version_cry_sets WHERE version = ?", [SQLValue(number)]) {
                ($0.text(0), $0.optionalText(1))
            }
        }
        guard let (selection, source) = row, let parsed = CrySet(rawValue: selection) else { return nil }
        return (parsed, source)
    }

    /// How many files version `number` holds in `tree`.
    package func fileCount(_ tree: LinkedTree, version: Int) throws -> Int {
        try read { database in
            guard try Self.hasTable(database, tree.versionTable) else { return 0 }
            return try database.integer("SELECT COUNT(*) FROM \(tree.versionTable) WHERE version = ?", [SQLValue(version)]) ?? 0
        }
    }
}
