/// Why an install or update did not happen. In every case the device folder still
/// opens at the version it had (or is empty, on a first install).
public enum UpdateError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A download or archive that is not what the index promised: wrong size or SHA-256,
    /// truncated, unsafe entries, a manifest that does not match, a wrong base.
    case badBundle(path: String, reason: String)
    /// The installed result's `content_digest` is not the manifest's.
    case digestMismatch(path: String, expected: String, actual: String)
    /// The index (or a bundle) needs a newer reader: the app must be updated.
    case newerSchema(source: String, schemaVersion: Int, supported: Int)
    /// The index is older than the installed version of the same lineage.
    case downgradeRefused(source: String, installed: Int, offered: Int)
    /// Another install holds the device folder's lock.
    case locked(path: String)
    /// The index or a bundle could not be fetched.
    case unreachable(source: String, reason: String)
    /// A local file could not be read or written (disk full, permissions).
    case io(path: String, reason: String)
    /// The folder holds things an install did not write: it is left untouched.
    case notADeviceFolder(path: String, reason: String)

    public var description: String {
        switch self {
        case let .badBundle(path, reason): "bundle \(path) \(reason)"
        case let .digestMismatch(path, expected, actual):
            "\(path) has content_digest \(actual), not the manifest's \(expected)"
        case let .newerSchema(source, schemaVersion, supported):
            "\(source) has schema version \(schemaVersion), newer than the \(supported) this reader knows: an app update is needed"
        case let .downgradeRefused(source, installed, offered):
            "\(source) offers version \(offered), older than the installed \(installed); refused (use --allow-downgrade)"
        case let .locked(path): "another install is running in \(path) (it holds .install.lock)"
        case let .unreachable(source, reason): "cannot read \(source): \(reason)"
        case let .io(path, reason): "cannot write \(path): \(reason)"
        case let .notADeviceFolder(path, reason): "\(path) is not a device folder: \(reason)"
        }
    }
}
