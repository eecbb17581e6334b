import Foundation
import PokeArchive
import PokeLocking

/// Writes one version as a PokeAPI/api-data tree, in upstream's exact bytes:
/// `api/v2/index.json` (the root), `api/v2/{kind}/index.json` (each list, in the
/// source's order), `api/v2/{kind}/{id}/index.json`, `api/v2/pokemon/{id}/encounters/index.json`,
/// `api/v2/meta/index.json`, and `schema/v2/` (the JSON schemas `ditto analyze` infers
/// over that tree). Every file is rendered by `ApiDataJSONWriter`, so the export of a
/// whole-API mirror of an api-data commit is that commit's `data/` folder, byte for byte.
/// The tree can be served statically as a read-only PokeAPI, and crawled back with
/// `--source DIR`. For a static deployment (``Options``) it also holds what ditto's
/// `transform` writes (absolute URLs, name aliases) and, on request, each file gzipped.
package struct ApiDataExporter {
    package let store: Store

    package init(store: Store) { self.store = store }

    /// What an export writes besides upstream's `data/`.
    package struct Options: Sendable {
        /// nil: `/api/v2/...` URLs stay relative, as upstream's; else each becomes
        /// `baseURL/api/v2/...` (and `$ref`s `baseURL/schema/v2/...`), as ditto's `transform`.
        package var baseURL: String?
        /// The name aliases (``ApiDataAliases``): `{kind}/{name}/index.json` and
        /// `pokemon/{name}/encounters/index.json`, as ditto's `transform` writes them.
        package var names: Bool
        /// Each file's `.gz` beside it (deterministic: no name or time in the header), for
        /// nginx's `gzip_static` or a CDN that takes precompressed files.
        package var gzip: Bool

        /// - Parameter names: default: with a base URL (a deployment, as ditto's
        ///   `transform`), not without (upstream's `data/`, byte for byte).
        package init(baseURL: String? = nil, names: Bool? = nil, gzip: Bool = false) {
            self.baseURL = baseURL
            self.names = names ?? (baseURL != nil)
            self.gzip = gzip
        }
    }

    /// What an export wrote.
    package struct Summary: Sendable {
        package var documents: Int
        /// Every file under `api/` and `schema/`, aliases and `.gz` files included.
        package var files: Int
        package var bytes: Int
        /// Name alias files (`.gz` files not counted).
        package var aliases: Int
        /// One line for each name two documents share, and each left out.
        package var notes: [String]
        /// One line for each kind of leftover of an earlier, killed export that was removed.
        package var cleaned: [String] = []
    }

    /// One file of the tree, below `api/v2/`, and the other paths that get the same bytes.
    private struct Item {
        enum Content { case stored(SHA256Digest), generated([UInt8]) }
        var path: String
        var content: Content
        var aliases: [String] = []
    }

    /// Builds the tree in a new folder beside `destination`, then renames it into place,
    /// so a reader never sees half an export. `destination` must not exist, or be an
    /// earlier export of pokesync's own (the marker file, `api/` and `schema/`): nothing
    /// else is ever removed or replaced.
    /// - Throws: `RequestError` (64) naming `destination` when it is anything else;
    ///   `LocalFileError` (74); `StoreError.corrupt` (65) for damaged documents.
    @discardableResult
    package func export(version: Int, to destination: URL, options: Options = Options()) throws -> Summary {
        let destination = destination.standardizedFileURL
        try Self.checkReplaceable(destination)
        try FileSystem.createDirectory(destination.deletingLastPathComponent())
        // What an export killed part way left here (its partial folder, an earlier export
        // it had set aside) goes first; a live export's partial folder is locked and kept.
        let cleaned = Self.removeLeftovers(Self.leftovers(beside: destination, purposes: ["partial"]), beside: destination)
        let building = try Self.makeSiblingFolder(of: destination, purpose: "partial")
        let lock = Self.lockBuildingFolder(building)
        defer {
            try? FileManager.default.removeItem(at: building)
            if let lock { close(lock) }
        }

        let documents = try store.documents(version: version)
        var aliases = options.names ? ApiDataAliases(documents: documents) : ApiDataAliases(documents: [])
        let byKind = Dictionary(grouping: documents, by: \.kind)
        let kinds = APIShape.kinds(holding: byKind.keys, mirrored: try store.versionKinds(version)?.resolved ?? [])
        var written = documents.map { $0.kind.apiDataFile(id: $0.id) }
        for kind in kinds where kind.isListed { written.append("\(kind.apiName)/index.json") }
        written.append("index.json")
        aliases.leaveOutCollisions(with: written, gzip: options.gzip)
        var items = documents.map { document -> Item in
            let path = document.kind.apiDataFile(id: document.id)
            return Item(path: path, content: .stored(document.hash), aliases: aliases.paths[path] ?? [])
        }
        for kind in kinds where kind.isListed {
            items.append(Item(path: "\(kind.apiName)/index.json",
                              content: .generated(ApiDataIndexes.list(kind: kind, documents: byKind[kind] ?? []))))
        }
        items.append(Item(path: "index.json", content: .generated(ApiDataIndexes.root(kinds: kinds))))

        let api = building.appendingPathComponent(APIShape.folderPath)
        try Self.createFolders(for: items.flatMap { [$0.path] + $0.aliases }, under: api)
        let schemas = ApiDataSchemaInference()
        // The schemas are inferred over each document once, under its id path: an alias
        // is a copy, and ditto's `analyze` runs before its `transform`.
        var bytes = try write(items, under: api.path, options: options) { canonical, path in
            try schemas.add(canonical, path: path)
        }
        let schemaFiles = schemas.files().map { Item(path: $0.path, content: .generated($0.json)) }
        let schema = building.appendingPathComponent(APIShape.schemaFolderPath)
        try Self.createFolders(for: schemaFiles.map(\.path), under: schema)
        bytes += try write(schemaFiles, under: schema.path, options: options) { _, _ in }

        let marker = Self.marker(version: version)
        try FileSystem.writeFile(marker, to: building.appendingPathComponent(Self.markerName))
        // Whole on disk before it is renamed into place: a power cut must not leave an
        // export of empty files where the previous one was.
        FileSystem.flush(building)
        try Self.moveIntoPlace(building, destination)
        // An earlier export a killed one had set aside, once this one is in place.
        let setAside = Self.removeLeftovers(Self.leftovers(beside: destination, purposes: ["previous"]), beside: destination)
        let files = (items.count + aliases.count + schemaFiles.count) * (options.gzip ? 2 : 1)
        return Summary(documents: documents.count, files: files, bytes: bytes, aliases: aliases.count, notes: aliases.notes,
                       cleaned: [cleaned, setAside].compactMap { $0 })
    }

    /// Renders and writes `items`, on every core: a stored document is read (inflated and
    /// checked against its hash), handed to `observe` as canonical JSON, rendered in
    /// upstream's form and written, at its path and its aliases' (rendered and gzipped
    /// once). Each worker keeps one writer (and gzip stream), so rendering allocates next
    /// to nothing after the largest document. The documents of one path pattern go
    /// through one worker, in order: the schema inferred from them is then the same on
    /// every export (`anyOf` members keep the order their documents came in).
    /// - Returns: the bytes written.
    private func write(_ items: [Item], under folder: String, options: Options,
                       observe: @Sendable (UnsafeRawBufferPointer, String) throws -> Void) throws -> Int {
        // Largest groups first, so the last one to finish is a small one.
        let groups = Dictionary(grouping: items.indices, by: { ApiDataSchemaInference.pattern(of: items[$0].path) })
            .values.sorted { ($0.count, $0.first!) > ($1.count, $1.first!) }
        let next = Locked(0)
        let outcome = Locked<(bytes: Int, error: (any Error)?)>((0, nil))
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        withoutActuallyEscaping(observe) { observe in
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                let writer = ApiDataJSONWriter(baseURL: options.baseURL)
                let gzip: ApiDataGzip?
                do {
                    gzip = options.gzip ? try ApiDataGzip() : nil
                } catch {
                    outcome.withLock { $0.error = $0.error ?? error }
                    return
                }
                var written = 0
                while let group = next.withLock({ value -> Int? in
                    defer { value += 1 }
                    return value < groups.count ? value : nil
                }) {
                    for index in groups[group] where outcome.withLock({ $0.error == nil }) {
                        do {
                            written += try write(items[index], under: folder, writer: writer, gzip: gzip, observe: observe)
                        } catch {
                            outcome.withLock { $0.error = $0.error ?? error }
                        }
                    }
                }
                outcome.withLock { $0.bytes += written }
            }
        }
        let result = outcome.withLock { $0 }
        if let error = result.error { throw error }
        return result.bytes
    }

    /// One item: its canonical JSON to `observe`, then rendered and written (and gzipped)
    /// at its path and its aliases'.
    /// - Returns: the bytes written.
    private func write(_ item: Item, under folder: String, writer: ApiDataJSONWriter, gzip: ApiDataGzip?,
                       observe: (UnsafeRawBufferPointer, String) throws -> Void) throws -> Int {
        let canonical: [UInt8]
        switch item.content {
        case .stored(let hash): canonical = try store.documentBody(hash)
        case .generated(let bytes): canonical = bytes
        }
        do {
            return try canonical.withUnsafeBytes { json in
                try observe(json, item.path)
                return try writer.render(json) { rendered in
                    let copies = 1 + item.aliases.count
                    try Self.write(rendered, at: item.path, aliases: item.aliases, under: folder)
                    guard let gzip else { return rendered.count * copies }
                    return try gzip.compressed(rendered) { packed in
                        try Self.write(packed, at: item.path + ".gz", aliases: item.aliases.map { $0 + ".gz" }, under: folder)
                        return (rendered.count + packed.count) * copies
                    }
                }
            }
        } catch let error as JSONSyntaxError {
            throw StoreError.corrupt(store.layout.display(store.layout.storeFile), "\(item.path): \(error)")
        }
    }

    /// `bytes` at `path`, then at each of `aliases` as a hard link to it: the same bytes
    /// without a second copy to write or store (a name alias of a pokemon is 100 kB and
    /// more). A copy (`cp`, `rsync`, an upload) makes each a file of its own. Where the file
    /// system has no hard links, each alias is written as a copy.
    /// - Throws: `LocalFileError` (74) naming the file.
    private static func write(_ bytes: UnsafeRawBufferPointer, at path: String, aliases: [String], under folder: String) throws {
        let primary = folder + "/" + path
        try FileSystem.writeFile(bytes, atPath: primary)
        for alias in aliases where link(primary, folder + "/" + alias) != 0 {
            try FileSystem.writeFile(bytes, atPath: folder + "/" + alias)
        }
    }

    /// Every folder the files at `paths` (relative to `root`) go in, made once each.
    private static func createFolders(for paths: [String], under root: URL) throws {
        try FileSystem.createDirectory(root)
        var made = Set<Substring>()
        for path in paths {
            guard let slash = path.lastIndex(of: "/") else { continue }
            let folder = path[..<slash]
            // Parents first: a path's folders are made from the top, each once.
            var end = folder.startIndex
            while end < folder.endIndex {
                end = folder[folder.index(after: end)...].firstIndex(of: "/") ?? folder.endIndex
                let part = folder[..<end]
                if made.insert(part).inserted, mkdir(root.path + "/" + part, 0o755) != 0, errno != EEXIST {
                    throw LocalFileError(path: root.path + "/" + part, errno: errno)
                }
            }
        }
    }
}
