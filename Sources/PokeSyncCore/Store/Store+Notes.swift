import Foundation
import PokeSQLite

extension Store {
    /// What the last run found worth saying about its source (e.g. that it sends no
    /// validators, so every sync downloads everything), for `status`; nil clears it.
    /// - Throws: `StoreError` when the store cannot be written.
    package func setSourceNotice(_ notice: String?) throws {
        try write { database in
            if let notice {
                try database.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('source_notice', ?)", [.text(notice)])
            } else {
                try database.run("DELETE FROM meta WHERE key = 'source_notice'", [])
            }
        }
    }

    /// The line `setSourceNotice(_:)` kept, if any.
    /// - Throws: `StoreError` when the store cannot be read.
    package func sourceNotice() throws -> String? {
        try read { try $0.row("SELECT value FROM meta WHERE key = 'source_notice'", [], { $0.text(0) }) }
    }
}
