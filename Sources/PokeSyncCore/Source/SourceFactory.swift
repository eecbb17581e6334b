import Foundation

/// Turns `--source` and `--sprite-source` (a URL or a folder) into the sources a run reads.
package enum SourceFactory {
    /// `--source URL|DIR`.
    /// - Throws: `RequestError` for a URL that is not http(s), `SourceError` for a missing folder.
    package static func documentSource(_ text: String, client: HTTPClient) throws -> any DocumentSource {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            guard let url = URL(string: text), url.host != nil else { throw RequestError.invalidSource(text, reason: .invalidURL) }
            return HTTPSource(base: url, client: client)
        }
        if text.contains("://") { throw RequestError.invalidSource(text, reason: .unsupportedScheme) }
        return try FolderSource(root: URL(fileURLWithPath: text))
    }

    /// The checks of ``documentSource(_:client:)`` that need no client: a URL must be
    /// http(s) with a host.
    /// - Throws: `RequestError.invalidSource`.
    package static func check(documentSource text: String) throws {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            guard let url = URL(string: text), url.host != nil else { throw RequestError.invalidSource(text, reason: .invalidURL) }
        } else if text.contains("://") {
            throw RequestError.invalidSource(text, reason: .unsupportedScheme)
        }
    }

    /// `--sprite-source URL|DIR`, or with `option` "cry-source", `--cry-source URL|DIR`.
    /// - Throws: `RequestError.invalidSpriteSource` for a URL without a host, `SourceError`
    ///   for a folder that does not exist.
    package static func spriteSource(_ text: String, option: String = "sprite-source") throws -> SpriteSource {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            guard let url = URL(string: text), url.host != nil else { throw RequestError.invalidSpriteSource(text) }
            return .http(url)
        }
        var isDirectory: ObjCBool = false
        let url = URL(fileURLWithPath: text).standardizedFileURL
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SourceError(resource: text, reason: "--\(option) folder does not exist")
        }
        return .folder(url)
    }
}
