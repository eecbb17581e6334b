import Foundation

/// A local folder in the PokeAPI/api-data layout: `DIR/api/v2/index.json` (the root),
/// `DIR/api/v2/{kind}/index.json`, `DIR/api/v2/{kind}/{id}/index.json`,
/// `DIR/api/v2/pokemon/{id}/encounters/index.json` and `DIR/api/v2/meta/index.json`.
///
/// Conditional fetches use the file's size and modification time as a validator,
/// so a sync from an unchanged folder reads nothing but the lists.
package struct FolderSource: DocumentSource {
    package let root: URL
    package var description: String { root.path }

    /// - Throws: `SourceError` (exit 69) when `root` has no `api/v2` folder.
    package init(root: URL) throws {
        self.root = root.standardizedFileURL
        var isDirectory: ObjCBool = false
        let api = self.root.appendingPathComponent(APIShape.folderPath)
        guard FileManager.default.fileExists(atPath: api.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SourceError(resource: root.path, reason: "not an api-data folder (no \(APIShape.folderPath) inside)")
        }
    }

    /// `DIR/api/v2/relative`.
    private func apiFile(_ relative: String) -> URL {
        root.appendingPathComponent(APIShape.folderPath + "/" + relative)
    }

    private func kindFolder(_ kind: ResourceKind) -> URL {
        apiFile(kind.apiName)
    }

    package func rootIndex() async throws -> RootIndex {
        let file = apiFile("index.json")
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw SourceError(resource: file.path, reason: "cannot read the root index (--kinds all lists the kinds from it)")
        }
        return RootIndex(endpoints: try RootIndex.parse(data, resource: file.path), deployHash: nil, bodyBytes: data.count, wire: .local)
    }

    package func list(_ kind: ResourceKind) async throws -> ResourceList {
        let file = kindFolder(kind).appendingPathComponent("index.json")
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw SourceError(resource: file.path, reason: "cannot read the \(kind.apiName) list")
        }
        let resources = try ListPage.parse(data, kind: kind, resource: file.path).results
        return ResourceList(resources: resources, deployHash: nil, bodyBytes: data.count)
    }

    package func fetch(_ kind: ResourceKind, id: Int, validators: Validators?) async throws -> DocumentFetch {
        try Task.checkCancellation()
        let file = apiFile(kind.apiDataFile(id: id))
        let stamp = Self.fileStamp(file.path)
        if let stamp, let known = validators?.etag, known == stamp { return .notModified(wire: .local) }
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw SourceError(resource: file.path, reason: "cannot read the document")
        }
        let document: CanonicalDocument
        do { document = try CanonicalJSON.canonicalize(data, stripPrefix: nil) } catch {
            throw SourceError(resource: file.path, reason: error.description, problem: .invalidAnswer)
        }
        if let problem = kind.problem(with: document, id: id) {
            throw SourceError(resource: file.path, reason: problem, problem: .invalidAnswer)
        }
        return .content(document, validators: Validators(etag: stamp, lastModified: nil), bodyBytes: data.count,
                        wire: .local)
    }

    /// "inode-size-mtime_ns": changes whenever the file is rewritten, and differs
    /// between two folders even when a file's size and time happen to match.
    static func fileStamp(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "file:\(info.st_ino)-\(info.st_size)-\(info.modificationNanoseconds)"
    }
}
