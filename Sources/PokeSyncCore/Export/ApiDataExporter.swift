import Foundation

/// Writes one version as a PokeAPI/api-data tree: `api/v2/{kind}/index.json` (the
/// full list in id order) and `api/v2/{kind}/{id}/index.json` (each document as
/// stored: canonical JSON with relative `/api/v2/` URLs). The tree can be served
/// statically as a read-only PokeAPI, and crawled back with `--source DIR`.
public struct ApiDataExporter {
    public let store: Store

    public init(store: Store) { self.store = store }

    /// Builds the tree beside `destination`, then moves it into place, so a reader never
    /// sees half an export. An existing earlier export at `destination` is replaced.
    /// - Throws: `UsageError` when `destination` holds something other than an api-data
    ///   tree; `LocalFileError` (74); `StoreError.corrupt` (65) for damaged documents.
    @discardableResult
    public func export(version: Int, to destination: URL) throws -> Int {
        let destination = destination.standardizedFileURL
        try Self.checkReplaceable(destination)
        let parent = destination.deletingLastPathComponent()
        try FileSystem.createDirectory(parent)
        let building = parent.appendingPathComponent(".\(destination.lastPathComponent).partial-\(getpid())")
        try? FileManager.default.removeItem(at: building)
        defer { try? FileManager.default.removeItem(at: building) }

        let documents = try store.documents(version: version)
        for kind in ResourceKind.allCases {
            let ofKind = documents.filter { $0.kind == kind }
            let folder = building.appendingPathComponent("api/v2/\(kind.apiName)")
            try FileSystem.createDirectory(folder)
            for document in ofKind {
                let body = try store.documentBody(document.hash)
                let documentFolder = folder.appendingPathComponent(String(document.id))
                try FileSystem.createDirectory(documentFolder)
                try Self.write(body, to: documentFolder.appendingPathComponent("index.json"))
            }
            try Self.write(Self.listJSON(kind: kind, documents: ofKind), to: folder.appendingPathComponent("index.json"))
        }
        if FileManager.default.fileExists(atPath: destination.path) {
            do { try FileManager.default.removeItem(at: destination) } catch {
                throw LocalFileError(path: destination.path, reason: "cannot replace: \(FileSystem.reason(error))")
            }
        }
        guard rename(building.path, destination.path) == 0 else { throw LocalFileError(path: destination.path, errno: errno) }
        return documents.count
    }

    /// `{"count":N,"next":null,"previous":null,"results":[{"name":..,"url":"/api/v2/kind/id/"}]}`.
    static func listJSON(kind: ResourceKind, documents: [VersionDocument]) throws -> [UInt8] {
        // Evolution chains have no name in the upstream list: none is invented.
        let results = documents.sorted { $0.id < $1.id }.map { document -> [String: Any] in
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

    /// A destination may be replaced when it is absent, empty, or an earlier export.
    static func checkReplaceable(_ destination: URL) throws {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: destination.path) else {
            if FileManager.default.fileExists(atPath: destination.path) {
                throw UsageError("--out \(destination.path) is a file, not a folder")
            }
            return
        }
        guard entries.allSatisfy({ $0 == "api" || $0.hasPrefix(".") }) else {
            throw UsageError("--out \(destination.path) is not empty and is not an api-data export; refusing to replace it")
        }
    }
}
