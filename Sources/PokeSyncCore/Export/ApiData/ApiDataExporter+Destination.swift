import Foundation

/// Where an api-data export goes: a new folder beside the destination, renamed into
/// place, and what an earlier export of pokesync's own looks like (the only thing an
/// export may replace).
extension ApiDataExporter {
    /// The file that marks a folder as an api-data export of pokesync's own, and so
    /// one that a later export may replace.
    package static let markerName = ".pokesync-export"

    /// Renames `building` to `destination`. An earlier export there is first renamed
    /// aside (and checked again, in case it changed since), then removed once the new
    /// one is in place; if the rename fails, it is put back.
    static func moveIntoPlace(_ building: URL, _ destination: URL) throws {
        guard Self.fileType(destination) != nil else {
            guard rename(building.path, destination.path) == 0 else { throw LocalFileError(path: destination.path, errno: errno) }
            return
        }
        let previous = try Self.makeSiblingFolder(of: destination, purpose: "previous")
        guard rename(destination.path, previous.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: previous)
            throw LocalFileError(path: destination.path, reason: "cannot replace: \(String(cString: strerror(code)))")
        }
        guard (try? Self.checkReplaceable(previous)) != nil, rename(building.path, destination.path) == 0 else {
            let code = errno
            _ = rename(previous.path, destination.path)
            throw LocalFileError(path: destination.path, reason: "cannot replace: \(String(cString: strerror(code)))")
        }
        try? FileManager.default.removeItem(at: previous)
    }

    /// A new, empty folder `.NAME.PURPOSE-RANDOM` beside `destination` (same file system,
    /// so the renames are atomic), created exclusively so it can never be someone else's.
    static func makeSiblingFolder(of destination: URL, purpose: String) throws -> URL {
        let parent = destination.deletingLastPathComponent()
        let folder = parent.appendingPathComponent(".\(destination.lastPathComponent).\(purpose)-\(UUID().uuidString.prefix(8))")
        guard mkdir(folder.path, 0o755) == 0 else { throw LocalFileError(path: folder.path, errno: errno) }
        return folder
    }

    /// `{"format":"api-data","pokesync":"<version>","version":N}` plus a newline.
    static func marker(version: Int) -> [UInt8] {
        Array("{\"format\":\"api-data\",\"pokesync\":\"\(PokeSync.version)\",\"version\":\(version)}\n".utf8)
    }

    /// A destination may be replaced only when it is absent, or an earlier export of
    /// pokesync's own: a real folder (not a link) holding exactly the marker, `api/` and,
    /// from exports that wrote schemas, `schema/`. Anything else, even a folder of
    /// dot-files only or an empty one, is refused.
    static func checkReplaceable(_ destination: URL) throws {
        let path = destination.path
        switch Self.fileType(destination) {
        case nil:
            return
        case S_IFDIR?:
            break
        case S_IFLNK?:
            throw RequestError.outputIsLink(path: path)
        default:
            throw RequestError.outputIsFile(path: path, apiData: true)
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        let marker = destination.appendingPathComponent(Self.markerName)
        guard Set(entries) == [Self.markerName, "api"] || Set(entries) == [Self.markerName, "api", "schema"],
              Self.fileType(marker) == S_IFREG,
              Self.fileType(destination.appendingPathComponent("api")) == S_IFDIR,
              let data = FileManager.default.contents(atPath: marker.path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              object["format"] as? String == "api-data" else {
            throw RequestError.outputNotAnExport(path: path, marker: Self.markerName)
        }
    }

    /// The type bits of `url` itself (a link is not followed), or nil when nothing is there.
    static func fileType(_ url: URL) -> mode_t? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }
}
