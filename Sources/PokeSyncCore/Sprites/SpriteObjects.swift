import Foundation
import PokeArchive

/// Sprite bytes by SHA-256 under `objects/`: `objects/ab/abcdef...`. A sprite shared
/// by many documents or kept by many versions is stored once.
package struct SpriteObjects: Sendable {
    package let root: URL
    let scratch: URL

    package init(layout: MirrorLayout) {
        root = layout.objectsFolder
        scratch = layout.scratchFolder
    }

    package func url(for hash: SHA256Digest) -> URL {
        let hex = hash.hex
        return root.appendingPathComponent(String(hex.prefix(2))).appendingPathComponent(hex)
    }

    /// The same as `url(for:)` as a path, made without `URL` (verify asks 56,000 times).
    func path(for hash: SHA256Digest) -> String {
        let hex = hash.hex
        return root.path + "/" + hex.prefix(2) + "/" + hex
    }

    package func contains(_ hash: SHA256Digest) throws -> Bool {
        FileManager.default.fileExists(atPath: url(for: hash).path)
    }

    /// True when the object of `hash` is there and its bytes hash to it: only then may
    /// a conditional request stand for it (a 304 would keep a damaged object).
    package func isSound(_ hash: SHA256Digest) -> Bool {
        guard let data = FileManager.default.contents(atPath: url(for: hash).path) else { return false }
        return SHA256.hash(data) == hash
    }

    /// Stores `bytes` (written aside, then renamed into place, so an object file is
    /// always whole) and returns their hash.
    /// - Throws: `LocalFileError` (exit 74) when the disk refuses.
    @discardableResult
    package func store(_ bytes: [UInt8]) throws -> SHA256Digest {
        let hash = SHA256.hash(bytes)
        let target = url(for: hash)
        // An object is kept only when it holds exactly these bytes: one of the wrong size
        // (a power cut emptied it) or with a damaged byte is written again, as a new
        // file (a hard link in the sprite tree keeps the old one until it is re-placed).
        if FileSystem.size(of: target) == bytes.count, let existing = FileManager.default.contents(atPath: target.path),
           existing == Data(bytes) { return hash }
        try FileSystem.createDirectory(target.deletingLastPathComponent())
        try FileSystem.writeAtomically(bytes, to: target, scratch: scratch)
        return hash
    }

    /// The sprites a run settled whose object file is missing or not the size stored:
    /// what a power cut can do to files written without an fsync each.
    func damaged(store: Store, run: Int) throws -> [SpriteJob] {
        try store.settledSpriteObjects(run: run).filter { FileSystem.size(of: url(for: $0.hash)) != $0.size }.map(\.job)
    }
}
