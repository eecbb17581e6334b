import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device folder's fixed names and the file-system steps that make an install
/// atomic: the lock, the `current` symlink switched by rename, fsync, and tidying.
///
/// ```
/// DIR/current -> versions/7      DIR/versions/7/pokedex.sqlite, sprites/...
/// DIR/.install.lock              DIR/.tmp/
/// ```
struct DeviceFolder {
    let root: URL
    var current: URL { root.appendingPathComponent("current") }
    var versions: URL { root.appendingPathComponent("versions", isDirectory: true) }
    var tmp: URL { root.appendingPathComponent(".tmp", isDirectory: true) }
    var lockFile: URL { root.appendingPathComponent(".install.lock") }

    func version(_ number: Int) -> URL { versions.appendingPathComponent(String(number), isDirectory: true) }

    /// The names a device folder holds; an install never touches a folder with anything else.
    static let ownNames: Set<String> = ["current", "versions", ".install.lock", ".tmp"]

    /// Refuses a folder that is not one this updater made (or an empty or missing one):
    /// an install removes leftovers inside it, so it must never run on someone's files.
    /// `current` must be a link, `versions` and `.tmp` real folders (never links, which
    /// would take removals elsewhere), and `versions` may hold only version folders.
    /// - Throws: ``UpdateError/notADeviceFolder`` naming what is in the way.
    func checkOwnership() throws {
        let fileManager = FileManager.default
        guard let entries = try? fileManager.contentsOfDirectory(atPath: root.path) else {
            if Self.type(of: root) != nil, Self.type(of: root) != .typeDirectory {
                throw UpdateError.notADeviceFolder(path: root.path, reason: "it is a file, not a folder")
            }
            return  // not there yet: a first install makes it
        }
        let foreign = entries.filter { !Self.ownNames.contains($0) && !$0.hasPrefix(".current.") }.sorted()
        guard foreign.isEmpty else {
            throw UpdateError.notADeviceFolder(path: root.path, reason: "it holds \(foreign.prefix(3).joined(separator: ", ")), "
                                               + "which an install did not write; install into an empty or new folder")
        }
        if let kind = Self.type(of: current), kind != .typeSymbolicLink {
            throw UpdateError.notADeviceFolder(path: root.path, reason: "its current is not a link")
        }
        for folder in [versions, tmp] {
            if let kind = Self.type(of: folder), kind != .typeDirectory {
                throw UpdateError.notADeviceFolder(path: root.path, reason: "its \(folder.lastPathComponent) is not a folder (a link?)")
            }
        }
        let strays = ((try? fileManager.contentsOfDirectory(atPath: versions.path)) ?? []).filter { Int($0) == nil }
        guard strays.isEmpty else {
            throw UpdateError.notADeviceFolder(path: root.path, reason: "its versions folder holds \(strays.sorted().prefix(3).joined(separator: ", "))")
        }
    }

    /// What is at `url` itself, links not followed; nil when nothing is.
    static func type(of url: URL) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
    }

    /// Creates the folders an install needs.
    func prepare() throws {
        for folder in [root, versions, tmp] {
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw UpdateError.io(path: folder.path, reason: error.localizedDescription)
            }
        }
    }

    /// Takes `.install.lock` (flock, released when the returned descriptor is closed or
    /// the process dies, so a killed install never leaves it held).
    /// - Throws: ``UpdateError/locked`` at once when another install holds it.
    func lock() throws -> Int32 {
        let descriptor = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw UpdateError.io(path: lockFile.path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw UpdateError.locked(path: root.path)
        }
        return descriptor
    }

    /// The version `current` points at, read from the link itself (`versions/N`).
    func currentVersionNumber() -> Int? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current.path),
              target.hasPrefix("versions/") else { return nil }
        return Int(target.dropFirst("versions/".count))
    }

    /// Removes what a killed install left: `.tmp` contents, versions `current` does not
    /// name, a half-made link.
    func removeLeftovers() {
        let fileManager = FileManager.default
        let keep = currentVersionNumber().map(String.init)
        for name in (try? fileManager.contentsOfDirectory(atPath: tmp.path)) ?? [] {
            try? fileManager.removeItem(at: tmp.appendingPathComponent(name))
        }
        for name in (try? fileManager.contentsOfDirectory(atPath: versions.path)) ?? [] where name != keep {
            try? fileManager.removeItem(at: versions.appendingPathComponent(name))
        }
        for name in (try? fileManager.contentsOfDirectory(atPath: root.path)) ?? [] where name.hasPrefix(".current.") {
            try? fileManager.removeItem(at: root.appendingPathComponent(name))
        }
    }

    /// Points `current` at `versions/N` in one rename: a reader sees the old or the new
    /// version, never neither.
    func switchCurrent(to number: Int) throws {
        let temporary = root.appendingPathComponent(".current.\(number).link")
        unlink(temporary.path)
        guard symlink("versions/\(number)", temporary.path) == 0 else {
            throw UpdateError.io(path: temporary.path, reason: String(cString: strerror(errno)))
        }
        guard rename(temporary.path, current.path) == 0 else {
            throw UpdateError.io(path: current.path, reason: String(cString: strerror(errno)))
        }
        try Self.syncFolder(root)
    }

    /// Flushes a file's bytes to disk.
    static func syncFile(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw UpdateError.io(path: url.path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw UpdateError.io(path: url.path, reason: String(cString: strerror(errno))) }
    }

    /// Flushes a folder's entries (a rename or link inside it) to disk.
    static func syncFolder(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw UpdateError.io(path: url.path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        _ = fsync(descriptor)  // some file systems refuse fsync on a folder; the rename is still ordered
    }

    /// Every regular file under `folder`, as paths relative to it, sorted.
    static func files(under folder: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: [String] = []
        for case let relative as String in walker {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(relative).path, isDirectory: &isFolder),
               !isFolder.boolValue {
                found.append(relative)
            }
        }
        return found.sorted()
    }

    /// Hard-links `source` to `target` (same file system), copying when linking fails.
    static func hardLink(_ source: URL, to target: URL) throws {
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            if link(source.path, target.path) != 0 {
                try FileManager.default.copyItem(at: source, to: target)
            }
        } catch {
            throw UpdateError.io(path: target.path, reason: error.localizedDescription)
        }
    }
}
