import Foundation
import PokeArchive
import PokeSQLite

extension Store {
    /// The meta key recording that every stored document's links are collected: the
    /// sprites of any kind (pokemon-form, item, type too) and a pokemon's cries. Stores made
    /// before kept the sprite links of pokemon documents only, and no cries.
    static let linkRuleKey = "links_of_every_kind"

    /// Brings stores made before linked files to the rule, once, in one transaction: the
    /// stored documents of kinds that link files get their sprite and cry lists from their
    /// bodies, so that a `sync --sprites all --cries all` whose documents are unchanged
    /// (a 304, or the same deploy) still knows every file they link. Bodies are unchanged,
    /// so no hash and no version changes.
    /// - Throws: `StoreError.corrupt` when a stored body cannot be read; `DatabaseError`.
    static func collectLinks(_ database: Database, display: String) throws {
        try runOnce(database, rule: linkRuleKey) { database in
            // Only the kinds that link files (<doc:PokeSyncCore/Sources#Linked-files>), and of those the bodies with a
            // `sprites` or `cries` member naming a URL (a cheap byte test picks them).
            let kinds = "'pokemon', 'pokemon-form', 'item', 'type'"
            let hashes = try database.rows(
                "SELECT hash FROM version_documents WHERE kind IN (\(kinds)) "
                + "UNION SELECT hash FROM frontier WHERE job = 'document' AND kind IN (\(kinds)) AND hash IS NOT NULL",
                []) { $0.blob(0) }
            let update = try database.statement("UPDATE documents SET sprite_refs = ?, cry_refs = ? WHERE hash = ?")
            for hash in hashes {
                guard let body = try storedBody(database, hash: hash, display: display) else { continue }
                guard Self.mayLink(body), let document = try? CanonicalJSON.canonicalize(body, stripPrefix: nil) else { continue }
                let links = try StoredDocument.links(of: document)
                guard links.sprites != nil || links.cries != nil else { continue }
                try update.run([links.sprites.map { .blob($0) } ?? .null, links.cries.map { .blob($0) } ?? .null, .blob(hash)])
            }
        }
    }

    /// True when `body` may have a top-level `sprites` or `cries` member holding a URL.
    static func mayLink(_ body: [UInt8]) -> Bool {
        guard body.count > 16 else { return false }
        let text = body.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
        return (text.contains("\"sprites\":") || text.contains("\"cries\":")) && text.contains("raw.githubusercontent.com")
    }
}

extension StoredDocument {
    /// A document's sprite and cry links as stored ("key<TAB>url" lines, zlib), nil for none.
    /// - Throws: `CompressionError` when zlib refuses.
    static func links(of document: CanonicalDocument) throws -> (sprites: [UInt8]?, cries: [UInt8]?) {
        func compressed(_ strings: [CollectedString]) throws -> [UInt8]? {
            guard !strings.isEmpty else { return nil }
            return try Zlib.compress(SpriteReference.encode(strings.map { SpriteReference(key: $0.path, url: $0.value) }))
        }
        return (try compressed(document.collected), try compressed(document.collectedAlso))
    }
}
