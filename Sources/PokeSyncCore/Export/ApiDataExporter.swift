import Foundation

/// Writes one version as a PokeAPI/api-data tree: `api/v2/{kind}/index.json` (the
/// full list in id order) and `api/v2/{kind}/{id}/index.json` (each document as
/// stored: canonical JSON with relative `/api/v2/` URLs). The tree can be served
/// statically as a read-only PokeAPI, and crawled back with `--source DIR`.
package struct ApiDataExporter {
    package let store: Store

    package init(store: Store) { self.store = store }

    /// The file that marks a folder as an api-data export of pokesync's own, and so
    /// one that a later export may replace.
    package static let markerName = ".pokesync-export"

    /// Builds the tree in a new folder beside `destination`, then renames it into place,
    /// so a reader never sees half an export. `destination` must not exist, or be an
    /// earlier export of pokesync's own (exactly the marker file and `api/`): nothing
    /// else is ever removed or replaced.
    /// - Throws: `RequestError` (64) naming `destination` when it is anything else;
    ///   `LocalFileError` (74); `StoreError.corrupt` (65) for damaged documents.
    @discardableResult
    package func export(version: Int, to destination: URL) throws -> Int {
        let destination = destination.standardizedFileURL
        try Self.checkReplaceable(destination)
        let parent = destination.deletingLastPathComponent()
        try FileSystem.createDirectory(parent)
        let building = try Self.makeSiblingFolder(of: destination, purpose: "partial")
        defer { try? FileManager.default.removeItem(at: building) }

        let documents = try store.documents(version: version)
        let api = building.appendingPathComponent("api/v2")
        try FileSystem.createDirectory(api)
        for document in documents {
            let file = api.appendingPathComponent(document.kind.apiDataFile(id: document.id))
            try FileSystem.createDirectory(file.deletingLastPathComponent())
            try Self.write(try store.documentBody(document.hash), to: file)
        }
        let byKind = Dictionary(grouping: documents, by: \.kind)
        for (kind, ofKind) in byKind where kind.isListed {
            try Self.write(Self.listJSON(kind: kind, documents: ofKind),
                           to: api.appendingPathComponent("\(kind.apiName)/index.json"))
        }
        try Self.write(Self.rootJSON(kinds: Array(byKind.keys)), to: api.appendingPathComponent("index.json"))
        try Self.write(Self.marker(version: version), to: building.appendingPathComponent(Self.markerName))
        try Self.moveIntoPlace(building, destination)
        return documents.count
    }

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

    /// `{"ability":"/api/v2/ability/",...,"meta":"/api/v2/meta/"}`: every listed kind of
    /// the version, and meta when it holds it (encounters have no endpoint of their own).
    static func rootJSON(kinds: [ResourceKind]) throws -> [UInt8] {
        let root = Dictionary(uniqueKeysWithValues: kinds.filter { $0 != .pokemonEncounters }.map {
            ($0.apiName, "/api/v2/\($0.apiName)/")
        })
        return [UInt8](try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// `{"count":N,"next":null,"previous":null,"results":[{"name":..,"url":"/api/v2/kind/id/"}]}`,
    /// in the source's order (id order for versions made before it was kept).
    static func listJSON(kind: ResourceKind, documents: [VersionDocument]) throws -> [UInt8] {
        // Evolution chains have no name in the upstream list: none is invented.
        let results = documents.sorted { ($0.position ?? $0.id, $0.id) < ($1.position ?? $1.id, $1.id) }.map { document -> [String: Any] in
            var entry: [String: Any] = ["url": kind.documentPath(id: document.id)]
            if let name = document.name { entry["name"] = name }
            return entry
        }
        let list: [String: Any] = ["count": results.count, "next": NSNull(), "previous": NSNull(), "results": results]
        let data = try JSONSerialization.data(withJSONObject: list, options: [.sortedKeys, .withoutEscapingSlashes])
        return [UInt8](data)
    }

    static func write(_ bytes: [UInt8], to file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: Data(bytes)) else {
            throw LocalFileError(path: file.path, reason: "cannot write (disk full or no permission?)")
        }
    }

    /// A destination may be replaced only when it is absent, or an earlier export of
    /// pokesync's own: a real folder (not a link) holding exactly the marker and `api/`.
    /// Anything else, even a folder of dot-files only or an empty one, is refused.
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
        guard Set(entries) == [Self.markerName, "api"], Self.fileType(marker) == S_IFREG,
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
