import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fresh folder an extraction writes into, reached only through descriptors relative
/// to the folder's own: no path is ever resolved through a symbolic link, so a name can
/// only land inside, whatever appears on disk meanwhile.
///
/// Not `Sendable`: it owns open descriptors and is used by one extraction.
final class ExtractionFolder {
    let path: String
    private var root: Int32
    /// Folders created below the root (relative components), to fsync at the end.
    private var createdDirectories: [[String]] = []

    /// Creates `path` (mode 0755), which must not exist, and opens it.
    /// - Throws: `TarError.io` if it exists, its parent is missing, or it cannot be created.
    init(creating path: String) throws {
        self.path = path
        guard mkdir(path, 0o755) == 0 else {
            throw errno == EEXIST
                ? TarError.io(path: path, operation: "extract into", reason: "it already exists")
                : TarError.posix(path, "create")
        }
        root = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard root >= 0 else {
            let error = TarError.posix(path, "open")
            rmdir(path)
            throw error
        }
        // The umask may have narrowed the mode; set it exactly.
        _ = fchmod(root, 0o755)
    }

    deinit { close() }

    /// Creates the folder `components` and any missing parents (mode 0755).
    func makeDirectory(_ components: [String]) throws {
        let descriptor = try openDirectory(components)
        systemClose(descriptor)
    }

    /// Creates the new file `components` (mode 0644), creating missing parent folders.
    func createFile(_ components: [String]) throws -> ExtractedFile {
        let parent = try openDirectory(Array(components.dropLast()))
        defer { if parent != root { systemClose(parent) } }
        let name = components.last!
        let descriptor = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TarError.posix(display(components), "create") }
        _ = fchmod(descriptor, 0o644)
        return ExtractedFile(descriptor: descriptor, path: display(components))
    }

    /// fsyncs every created folder, the root and the root's parent (which gained the root).
    func synchronize() throws {
        for components in createdDirectories {
            let descriptor = try openDirectory(components, create: false)
            defer { if descriptor != root { systemClose(descriptor) } }
            guard fsync(descriptor) == 0 else { throw TarError.posix(display(components), "sync") }
        }
        guard fsync(root) == 0 else { throw TarError.posix(path, "sync") }
        let parentPath = (path as NSString).deletingLastPathComponent
        let parent = open(parentPath.isEmpty ? "." : parentPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parent >= 0 {
            _ = fsync(parent)
            systemClose(parent)
        }
    }

    func close() {
        if root >= 0 { systemClose(root) }
        root = -1
    }

    /// Removes the folder and all it holds, after a failure. Everything in it was created
    /// by this extraction, and removal does not follow links.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Opens the folder `components` below the root, one `openat` per component with
    /// `O_NOFOLLOW | O_DIRECTORY`, creating missing ones. The root itself for no components.
    private func openDirectory(_ components: [String], create: Bool = true) throws -> Int32 {
        var current = root
        for (depth, component) in components.enumerated() {
            var next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0 && errno == ENOENT && create {
                let made = Array(components[...depth])
                if mkdirat(current, component, 0o755) != 0 && errno != EEXIST {
                    let error = TarError.posix(display(made), "create")
                    if current != root { systemClose(current) }
                    throw error
                }
                next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if next >= 0 {
                    _ = fchmod(next, 0o755)
                    createdDirectories.append(made)
                }
            }
            if next < 0 {
                // ELOOP or ENOTDIR: a link or a file where a folder should be. Refused.
                let error = TarError.posix(display(Array(components[...depth])), "open")
                if current != root { systemClose(current) }
                throw error
            }
            if current != root { systemClose(current) }
            current = next
        }
        return current
    }

    private func display(_ components: [String]) -> String {
        ([path] + components).joined(separator: "/")
    }
}

/// A file being written by an extraction.
struct ExtractedFile {
    let descriptor: Int32
    let path: String

    func write(_ bytes: [UInt8]) throws {
        let code = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
        guard code == 0 else { errno = code; throw TarError.posix(path, "write") }
    }

    func synchronize() throws {
        guard fsync(descriptor) == 0 else { throw TarError.posix(path, "sync") }
    }

    func close() throws {
        let result = systemClose(descriptor)
        guard result == 0 || errno == EINTR else { throw TarError.posix(path, "close") }
    }

    func closeIgnoringErrors() {
        _ = systemClose(descriptor)
    }
}

// `close` is shadowed by the method of the same name above.
@discardableResult
private func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(descriptor)
    #else
    Darwin.close(descriptor)
    #endif
}
