import Foundation
import PokeArchive

/// Sprite bytes by SHA-256 under `objects/`: `objects/ab/abcdef...`. A sprite shared
/// by many documents or kept by many versions is stored once.
public struct SpriteObjects: Sendable {
    public let root: URL
    let scratch: URL

    public init(layout: MirrorLayout) {
        root = layout.objectsFolder
        scratch = layout.scratchFolder
    }

    public func url(for hash: SHA256Digest) -> URL {
        let hex = hash.hex
        return root.appendingPathComponent(String(hex.prefix(2))).appendingPathComponent(hex)
    }

    public func contains(_ hash: SHA256Digest) throws -> Bool {
        FileManager.default.fileExists(atPath: url(for: hash).path)
    }

    /// Stores `bytes` (written aside, then renamed into place, so an object file is
    /// always whole) and returns their hash.
    /// - Throws: `LocalFileError` (exit 74) when the disk refuses.
    @discardableResult
    public func store(_ bytes: [UInt8]) throws -> SHA256Digest {
        let hash = SHA256.hash(bytes)
        let target = url(for: hash)
        // An object of the wrong size (a power cut emptied it) is written again.
        if Self.size(of: target.path) == bytes.count { return hash }
        try FileSystem.createDirectory(target.deletingLastPathComponent())
        try FileSystem.writeAtomically(bytes, to: target, scratch: scratch)
        return hash
    }

    static func size(of path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// The sprites a run settled whose object file is missing or not the size stored:
    /// what a power cut can do to files written without an fsync each.
    func damaged(store: Store, run: Int) throws -> [SpriteJob] {
        try store.settledSpriteObjects(run: run).filter { Self.size(of: url(for: $0.hash).path) != $0.size }.map(\.job)
    }
}
