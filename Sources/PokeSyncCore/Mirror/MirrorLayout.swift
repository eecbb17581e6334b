import Foundation

/// The files of one mirror folder. Only `mirror.json`, `sprites/`, `bundles/` and
/// `logs/` are fixed by the design; the rest are pokesync's own.
public struct MirrorLayout: Sendable {
    public let root: URL

    public init(root: URL) { self.root = root.standardizedFileURL }

    /// `--mirror DIR`, else `$POKESYNC_MIRROR`, else `./Mirror`.
    public static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> MirrorLayout {
        let path = option ?? environment["POKESYNC_MIRROR"] ?? "Mirror"
        return MirrorLayout(root: URL(fileURLWithPath: path))
    }

    public var configFile: URL { root.appendingPathComponent("mirror.json") }
    /// The versioned store: documents, versions, and the run in progress.
    public var storeFile: URL { root.appendingPathComponent("store.sqlite") }
    /// Sprite bytes by SHA-256: `objects/ab/abcdef....`
    public var objectsFolder: URL { root.appendingPathComponent("objects") }
    /// The latest version's sprites at their upstream paths.
    public var spritesFolder: URL { root.appendingPathComponent("sprites") }
    public var bundlesFolder: URL { root.appendingPathComponent("bundles") }
    public var logsFolder: URL { root.appendingPathComponent("logs") }
    /// Each published version's diff against the one before, for the nightly job.
    public var diffsFolder: URL { root.appendingPathComponent("diffs") }
    public var lockFile: URL { root.appendingPathComponent(".pokesync.lock") }
    /// Where files are written before being renamed into place (same file system).
    public var scratchFolder: URL { root.appendingPathComponent(".tmp") }

    /// The relative name used in messages: `Mirror/store.sqlite`.
    public func display(_ url: URL) -> String {
        let rootPath = root.path
        guard url.path.hasPrefix(rootPath + "/") else { return url.path }
        return root.lastPathComponent + "/" + url.path.dropFirst(rootPath.count + 1)
    }
}
