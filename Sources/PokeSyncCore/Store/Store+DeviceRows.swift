import Foundation
import PokeArchive
import PokeSQLite

extension Store {
    /// A document's canonical JSON and its sprite list, for the device database builder:
    /// one read of the store, and no SHA-256 (an eighth of a full build's time). zlib's
    /// Adler-32 and the recorded size still catch a damaged body; `pokesync verify`
    /// checks every hash.
    /// - Throws: `StoreError.corrupt` when the document is missing or does not inflate to its size.
    func deviceDocument(_ hash: SHA256Digest, withSprites: Bool) throws -> (body: [UInt8], sprites: [SpriteReference]) {
        let stored = try read { database in
            try database.row("SELECT size, body, \(withSprites ? "sprite_refs" : "NULL") FROM documents WHERE hash = ?",
                             [.blob(hash.bytes)]) { ($0.int(0), $0.blob(1), $0.optionalBlob(2)) }
        }
        let display = layout.display(layout.storeFile)
        guard let (size, compressed, spriteList) = stored else {
            throw StoreError.corrupt(display, "document \(hash.hex) is missing")
        }
        do {
            let body = try Zlib.decompress(compressed, limit: size)
            guard body.count == size else { throw StoreError.corrupt(display, "document \(hash.hex) is not its recorded size") }
            return (body, try spriteList.map { Self.parseSpriteList(try Zlib.decompress($0)) } ?? [])
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.corrupt(display, "document \(hash.hex): \(error)")
        }
    }

    /// "key<TAB>url\n" lines, split on bytes (the store's own decoder goes through
    /// `String.split`, several times slower over a build's 52,000 sprites).
    static func parseSpriteList(_ bytes: [UInt8]) -> [SpriteReference] {
        var references: [SpriteReference] = []
        var lineStart = 0
        var tab = -1
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "\t") where tab < 0: tab = index
            case UInt8(ascii: "\n"):
                if tab >= 0 {
                    references.append(SpriteReference(key: String(decoding: bytes[lineStart..<tab], as: UTF8.self),
                                                      url: String(decoding: bytes[(tab + 1)..<index], as: UTF8.self)))
                }
                lineStart = index + 1
                tab = -1
            default: break
            }
        }
        return references
    }
}
