import Foundation
import PokeArchive

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

    /// The size of the file at `url`, or nil when there is none.
    static func size(of url: URL) -> Int? {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// Writes `bytes` to a new file at `target` (which must not exist).
    static func writeFile(_ bytes: [UInt8], to target: URL) throws {
        try bytes.withUnsafeBytes { try writeFile($0, atPath: target.path) }
    }

    /// Writes `bytes` to a new file at `path` (which must not exist); a file that could not
    /// be written whole (disk full, a failed close) is removed.
    /// - Throws: `LocalFileError` (74) naming the file.
    static func writeFile(_ bytes: UnsafeRawBufferPointer, atPath path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LocalFileError(path: path, errno: errno) }
        let code = writeAll(descriptor, bytes)
        let closed = close(descriptor) == 0 ? 0 : errno
        guard code == 0, closed == 0 else {
            unlink(path)
            throw LocalFileError(path: path, errno: code != 0 ? code : closed)
        }
    }

    /// fsync of one file or folder: its bytes (or its entries) are on disk when it returns.
    /// Best effort: a file system that cannot say so does not stop the write it follows.
    static func sync(file url: URL) {
        try? syncReporting(url)
    }

    /// fsync of one file or folder, for writes that must not go on without it.
    /// - Throws: `LocalFileError` (74) when it cannot be opened or flushed.
    static func syncReporting(_ url: URL) throws {
        let code = synchronizeFile(atPath: url.path)
        guard code == 0 else { throw LocalFileError(path: url.path, errno: code) }
    }

    /// The size and SHA-256 of a file pokesync reads back (a sprite object, a bundle).
    /// - Throws: `LocalFileError` (74) when it cannot be read.
    static func hash(_ url: URL) throws -> (size: Int, digest: SHA256Digest) {
        guard let result = SHA256.hashFile(atPath: url.path) else {
            throw LocalFileError(path: url.path, reason: "cannot read it")
        }
        return result
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
