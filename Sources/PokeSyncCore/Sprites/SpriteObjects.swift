import Foundation

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

    /// True when the object of `hash` is there and its bytes hash to it: only then may
    /// a conditional request stand for it (a 304 would keep a damaged object).
    public func isSound(_ hash: SHA256Digest) -> Bool {
        guard let data = FileManager.default.contents(atPath: url(for: hash).path) else { return false }
        return SHA256.hash(data) == hash
    }

    /// Stores `bytes` (written aside, then renamed into place, so an object file is
    /// always whole) and returns their hash.
    /// - Throws: `LocalFileError` (exit 74) when the disk refuses.
    @discardableResult
    public func store(_ bytes: [UInt8]) throws -> SHA256Digest {
        let hash = SHA256.hash(bytes)
        let target = url(for: hash)
        // An object is kept only when it holds exactly these bytes: one of the wrong size
        // (a power cut emptied it) or with a damaged byte is written again, as a new
        // file (a hard link in the sprite tree keeps the old one until it is re-placed).
        if Self.size(of: target.path) == bytes.count, let existing = FileManager.default.contents(atPath: target.path),
           existing == Data(bytes) { return hash }
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

/// Small file-system helpers that turn failures into `LocalFileError`.
enum FileSystem {
    static func createDirectory(_ url: URL) throws {
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw LocalFileError(path: url.path, reason: "cannot create folder: \(Self.reason(error))")
        }
    }

    /// Writes to a unique file in `scratch`, then renames it over `target`.
    static func writeAtomically(_ bytes: [UInt8], to target: URL, scratch: URL) throws {
        try createDirectory(scratch)
        let temporary = scratch.appendingPathComponent(UUID().uuidString)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LocalFileError(path: temporary.path, errno: errno) }
        var written = 0
        let failure: Int32? = bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 { if errno == EINTR { continue }; return errno }
                written += result
            }
            return nil
        }
        close(descriptor)
        if let failure {
            unlink(temporary.path)
            throw LocalFileError(path: target.path, errno: failure)
        }
        guard rename(temporary.path, target.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw LocalFileError(path: target.path, errno: code)
        }
    }

    /// Asks the kernel to write out everything cached for the file system holding
    /// `folder` (one call, rather than an fsync per sprite), so that the files a
    /// version names are on disk before the version is.
    static func flush(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        #if os(Linux)
        _ = linuxSyncfs(descriptor)
        #else
        sync()
        #endif
        close(descriptor)
    }

    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}

#if os(Linux)
// glibc has syncfs(2), but Swift's Glibc module does not import it.
@_silgen_name("syncfs") private func linuxSyncfs(_ descriptor: Int32) -> Int32
#endif
