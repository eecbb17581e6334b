import Foundation
@testable import PokeSyncCore

/// Reading and writing api-data trees for the schema tests: documents canonicalized as
/// the exporter holds them, schema files compared as JSON values.
enum SchemaTreeFiles {
    /// Every `.json` file under `tree/api/v2`, sorted by path, with its path there
    /// (`pokemon/25/index.json`) and its canonical bytes (`CanonicalJSON.canonicalize`,
    /// no prefix to strip, nothing collected).
    static func canonicalDocuments(apiData tree: URL) throws -> [(path: String, bytes: [UInt8])] {
        try jsonFiles(under: tree.appendingPathComponent("api/v2")).map { path, url in
            (path, try CanonicalJSON.canonicalize(Data(contentsOf: url), stripPrefix: nil, collectUnder: nil).bytes)
        }
    }

    /// The `.json` files under `root`, recursively, sorted by relative path.
    static func jsonFiles(under root: URL) throws -> [(path: String, url: URL)] {
        let root = root.standardizedFileURL.resolvingSymlinksInPath()
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        var files: [(path: String, url: URL)] = []
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for case let url as URL in walker where url.pathExtension == "json" {
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard path.hasPrefix(prefix), try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            files.append((String(path.dropFirst(prefix.count)), url))
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Writes each file at `folder/path`.
    static func write(_ files: [ApiDataSchemaFile], under folder: URL) throws {
        for file in files {
            let url = folder.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.json).write(to: url)
        }
    }

    /// The same JSON value (objects as dictionaries, arrays in order).
    static func sameJSON(_ left: [UInt8], _ right: [UInt8]) throws -> Bool {
        let a = try JSONSerialization.jsonObject(with: Data(left), options: [.fragmentsAllowed]) as? NSObject
        let b = try JSONSerialization.jsonObject(with: Data(right), options: [.fragmentsAllowed]) as? NSObject
        return a != nil && a == b
    }
}
