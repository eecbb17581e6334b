import Foundation

/// What a killed export leaves beside its destination, and how the next one clears it.
///
/// An export builds in `.NAME.partial-XXXXXXXX` and sets an earlier export aside as
/// `.NAME.previous-XXXXXXXX` while it renames (``ApiDataExporter/makeSiblingFolder(of:purpose:)``).
/// A `kill -9` leaves either behind: the next export of the same destination removes them.
/// A folder still being built holds an exclusive `flock` on itself, so one export never
/// removes another's work in progress.
extension ApiDataExporter {
    /// Takes an exclusive lock on the folder being built, held until `close`.
    /// - Returns: the descriptor to close when the export ends, or nil when the lock cannot be had.
    static func lockBuildingFolder(_ folder: URL) -> Int32? {
        let descriptor = open(folder.path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// The folders beside `destination` that an export stopped part way left: partial ones no
    /// live export holds, and earlier exports set aside (`previous`) that are pokesync's own.
    /// - Parameter purposes: which kinds to look for.
    static func leftovers(beside destination: URL, purposes: [String]) -> [URL] {
        let parent = destination.deletingLastPathComponent()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        let hex = Set("0123456789ABCDEF")
        return entries.sorted().compactMap { entry -> URL? in
            guard let purpose = purposes.first(where: { entry.hasPrefix(".\(destination.lastPathComponent).\($0)-") }) else {
                return nil
            }
            let suffix = entry.dropFirst(".\(destination.lastPathComponent).\(purpose)-".count)
            guard suffix.count == 8, suffix.allSatisfy(hex.contains) else { return nil }
            let url = parent.appendingPathComponent(entry)
            guard fileType(url) == S_IFDIR else { return nil }
            if purpose == "partial" {
                // Another export building there right now holds its lock: not a leftover.
                guard let descriptor = lockBuildingFolder(url) else { return nil }
                close(descriptor)
            } else {
                guard (try? checkReplaceable(url)) != nil else { return nil }
            }
            return url
        }
    }

    /// Removes `folders`, and says so in one line (nil when there was nothing to remove).
    static func removeLeftovers(_ folders: [URL], beside destination: URL) -> String? {
        guard !folders.isEmpty else { return nil }
        var bytes = 0
        for folder in folders {
            bytes += treeSize(folder)
            try? FileManager.default.removeItem(at: folder)
        }
        let names = folders.map(\.lastPathComponent).joined(separator: ", ")
        return String(format: "removed %d folder(s) an earlier export stopped part way left beside %@ (%@, %.1f MB)",
                      folders.count, destination.path, names, Double(bytes) / 1_000_000)
    }

    /// Bytes of the regular files below `folder` (links not followed).
    static func treeSize(_ folder: URL) -> Int {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return 0 }
        var total = 0
        for case let relative as String in walker {
            var info = stat()
            if lstat(folder.path + "/" + relative, &info) == 0, info.st_mode & S_IFMT == S_IFREG { total += Int(info.st_size) }
        }
        return total
    }
}
