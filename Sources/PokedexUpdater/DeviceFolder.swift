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
/// DIR/.index-etag                the ETag of the index the device is current with
/// ```
///
/// A version folder is `versions/N`, or `versions/N.<hex>` when `versions/N` is what
/// `current` names (the same version rebuilt for another profile or lineage): the new
/// folder is always built beside the live one and `current` switched by one rename.
struct DeviceFolder {
    let root: URL
    var current: URL { root.appendingPathComponent("current") }
    var versions: URL { root.appendingPathComponent("versions", isDirectory: true) }
    var tmp: URL { root.appendingPathComponent(".tmp", isDirectory: true) }
    var lockFile: URL { root.appendingPathComponent(".install.lock") }
    /// The ETag of the index the installed version came from, and that index's URL:
    /// the next check sends it as If-None-Match (a 304 means already current).
    var etagFile: URL { root.appendingPathComponent(".index-etag") }

    /// The names a device folder holds; an install never touches a folder with anything else.
    static let ownNames: Set<String> = ["current", "versions", ".install.lock", ".tmp", ".index-etag"]

    /// Whether `name` is one a version folder may have: `N` or `N.<hex>`.
    static func isVersionName(_ name: Substring) -> Bool {
        let parts = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let number = parts.first, !number.isEmpty, number.utf8.count <= 10, number.allSatisfy(\.isASCII), Int(number) != nil
        else { return false }
        return parts.count == 1 || (!parts[1].isEmpty && parts[1].utf8.count <= 16 && parts[1].allSatisfy(\.isHexDigit))
    }

    /// A fresh folder name for version `number`: never the one `current` names, so the
    /// live version is never removed or replaced before the switch.
    func newVersionName(_ number: Int) -> String {
        let plain = String(number)
        guard currentVersionName() == plain || Self.type(of: versions.appendingPathComponent(plain)) != nil else { return plain }
        return plain + "." + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

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
        if let kind = Self.type(of: lockFile), kind != .typeRegular {
            throw UpdateError.notADeviceFolder(path: root.path, reason: "its .install.lock is not a plain file (a link?)")
        }
        if let kind = Self.type(of: etagFile), kind != .typeRegular {
            throw UpdateError.notADeviceFolder(path: root.path, reason: "its .index-etag is not a plain file (a link?)")
        }
        let strays = ((try? fileManager.contentsOfDirectory(atPath: versions.path)) ?? []).filter { !Self.isVersionName($0[...]) }
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

    /// Takes the install lock: flock on the device folder itself (which no one can delete
    /// from under a running install, as they could `.install.lock`), and on `.install.lock`
    /// too, opened without following a link, for installers that lock only the file.
    /// Both are released when the descriptors are closed or the process dies.
    /// - Returns: the descriptors to close when done.
    /// - Throws: ``UpdateError/locked`` when another install holds it (within
    ///   ``lockGraceSeconds``); ``UpdateError/notADeviceFolder`` when `.install.lock` is a link.
    func lock() throws -> [Int32] {
        let folder = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw UpdateError.unreadable(path: root.path, reason: String(cString: strerror(errno))) }
        guard Self.flockWithinGrace(folder) else {
            close(folder)
            throw UpdateError.locked(path: root.path)
        }
        let descriptor = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            close(folder)
            if code == ELOOP { throw UpdateError.notADeviceFolder(path: root.path, reason: "its .install.lock is a link") }
            throw UpdateError.io(path: lockFile.path, reason: String(cString: strerror(code)))
        }
        guard Self.flockWithinGrace(descriptor) else {
            close(descriptor)
            close(folder)
            throw UpdateError.locked(path: root.path)
        }
        return [descriptor, folder]
    }

    /// How long a lock held by someone else is waited for before ``UpdateError/locked``.
    /// An install's lock goes with its descriptors, and a descriptor lives on in a child
    /// the app (or a test runner) is forking until that child execs or exits, even
    /// close-on-exec: an install right after another one in the same process can find the
    /// lock still held for those microseconds. A real second install holds it for seconds.
    static let lockGraceSeconds = 0.25

    /// `flock(LOCK_EX)` on `descriptor`, tried again every 5 ms for ``lockGraceSeconds``
    /// while another description holds it; false when it is still held then.
    private static func flockWithinGrace(_ descriptor: Int32) -> Bool {
        let tries = Int(lockGraceSeconds / 0.005)
        for attempt in 0...tries {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK || errno == EINTR, attempt < tries else { return false }
            usleep(5_000)
        }
        return false
    }

    /// The version folder name `current` points at, read from the link itself (`versions/N[.hex]`).
    func currentVersionName() -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current.path),
              target.hasPrefix("versions/") else { return nil }
        let name = target.dropFirst("versions/".count)
        return Self.isVersionName(name) ? String(name) : nil
    }

    /// The ETag kept for `indexURL`, when the device is current with that index.
    func keptETag(for indexURL: URL) -> String? {
        guard let text = try? String(contentsOf: etagFile, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, lines[0] == indexURL.absoluteString, !lines[1].isEmpty, lines[1].utf8.count <= 512 else { return nil }
        return String(lines[1])
    }

    /// Keeps `etag` for `indexURL` (nil forgets any): written aside and renamed in.
    func keepETag(_ etag: String?, for indexURL: URL) {
        guard let etag, !etag.isEmpty, etag.utf8.count <= 512, !etag.contains("\n") else {
            unlink(etagFile.path)
            return
        }
        let aside = tmp.appendingPathComponent("index-etag")
        guard (try? Data((indexURL.absoluteString + "\n" + etag + "\n").utf8).write(to: aside)) != nil else { return }
        if rename(aside.path, etagFile.path) != 0 { unlink(aside.path) }
    }

    /// Removes what a killed install left: `.tmp` contents, versions `current` does not
    /// name, a half-made link.
    func removeLeftovers() {
        let fileManager = FileManager.default
        let keep = currentVersionName()
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

    /// Points `current` at `versions/NAME` in one rename: a reader sees the old or the new
    /// version, never neither.
    func switchCurrent(to name: String) throws {
        let temporary = root.appendingPathComponent(".current.\(name).link")
        unlink(temporary.path)
        guard symlink("versions/\(name)", temporary.path) == 0 else {
            throw UpdateError.io(path: temporary.path, reason: String(cString: strerror(errno)))
        }
        guard rename(temporary.path, current.path) == 0 else {
            throw UpdateError.io(path: current.path, reason: String(cString: strerror(errno)))
        }
        try Self.syncFolder(root)
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
