import Foundation

/// The files of one mirror folder. Only `mirror.json`, `sprites/`, `bundles/` and
/// `logs/` are fixed by the design; the rest are pokesync's own.
package struct MirrorLayout: Sendable {
    package let root: URL

    package init(root: URL) { self.root = root.standardizedFileURL }

    /// `--mirror DIR`, else `$POKESYNC_MIRROR`, else `./Mirror`.
    package static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> MirrorLayout {
        let path = option ?? environment["POKESYNC_MIRROR"] ?? "Mirror"
        return MirrorLayout(root: URL(fileURLWithPath: path))
    }

    package var configFile: URL { root.appendingPathComponent("mirror.json") }
    /// The versioned store: documents, versions, and the run in progress.
    package var storeFile: URL { root.appendingPathComponent("store.sqlite") }
    /// Sprite bytes by SHA-256: `objects/ab/abcdef....`
    package var objectsFolder: URL { root.appendingPathComponent("objects") }
    /// The latest version's sprites at their upstream paths.
    package var spritesFolder: URL { root.appendingPathComponent("sprites") }
    package var bundlesFolder: URL { root.appendingPathComponent("bundles") }
    package var logsFolder: URL { root.appendingPathComponent("logs") }
    /// Each published version's diff against the one before, for the nightly job.
    package var diffsFolder: URL { root.appendingPathComponent("diffs") }
    package var lockFile: URL { root.appendingPathComponent(".pokesync.lock") }
    /// Where files are written before being renamed into place (same file system).
    package var scratchFolder: URL { root.appendingPathComponent(".tmp") }

    /// How messages name a file of the mirror: its full path (`/srv/pokesync/Mirror/mirror.json`),
    /// never one relative to where the command ran, so that the operator can open the file
    /// the line names whatever directory cron or a shell was in.
    package func display(_ url: URL) -> String {
        url.standardizedFileURL.path
    }
}
