import PokedexReader
/// Why an install or update did not happen. In every case the device folder still
/// opens at the version it had (or is empty, on a first install), so the app goes on
/// reading; ``recovery`` says what it can do next.
///
/// The messages (``description``) are for a log or a support report, not for the app's
/// user: they name files and servers, and no command-line flag.
public enum UpdateError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A download or archive that is not what the index promised: wrong size or SHA-256,
    /// truncated, unsafe entries, a manifest that does not match, a wrong base.
    case badBundle(path: String, reason: String)
    /// The installed result's `content_digest` is not the manifest's.
    case digestMismatch(path: String, expected: String, actual: String)
    /// The index (or a bundle) needs a newer reader: the app must be updated.
    case newerSchema(source: String, schemaVersion: Int, supported: Int)
    /// The index is older than the installed version of the same lineage: the device
    /// keeps its newer version (``Updater/update(from:allowDowngrade:progress:)`` with
    /// `allowDowngrade: true` installs the older one).
    case downgradeRefused(source: String, installed: Int, offered: Int)
    /// Another install holds the device folder's lock.
    case locked(path: String)
    /// The index or a bundle could not be fetched.
    case unreachable(source: String, reason: String)
    /// A local file or folder could not be written or created (disk full, permissions).
    case io(path: String, reason: String)
    /// A local file the update needs could not be read (the installed database, a
    /// downloaded archive).
    case unreadable(path: String, reason: String)
    /// The folder holds things an install did not write: it is left untouched.
    case notADeviceFolder(path: String, reason: String)

    /// What an app can do about a failed update. The installed version is whole and
    /// readable in every case.
    public enum Recovery: Sendable, Equatable {
        /// Try again later (the next launch, the next nightly task): the network, the
        /// server, a bundle the server will replace, another install still running, a
        /// full disk the user may clear.
        case retryLater
        /// This build of the app cannot read what the server offers: only an app update
        /// (a newer `PokedexReader`) gets new data. Retrying is pointless until then.
        case updateApp
        /// Nothing: the device already holds newer data than the server offers.
        case nothingToDo
        /// A bug in the app, not a passing failure: the folder given to ``Updater`` is
        /// not one the updater owns. Give it a folder of its own (one only it writes to).
        case useAnotherFolder
    }

    /// What the app can do next (see ``Recovery``).
    public var recovery: Recovery {
        switch self {
        case .badBundle, .digestMismatch, .locked, .unreachable, .io, .unreadable: .retryLater
        case .newerSchema: .updateApp
        case .downgradeRefused: .nothingToDo
        case .notADeviceFolder: .useAnotherFolder
        }
    }

    /// One line naming what failed and where, for a log or a support report.
    public var description: String {
        switch self {
        case let .badBundle(path, reason): "bundle \(path) \(reason)"
        case let .digestMismatch(path, expected, actual):
            "\(path) has content_digest \(actual), not the manifest's \(expected)"
        case let .newerSchema(source, schemaVersion, supported):
            "\(source) has schema version \(schemaVersion), newer than the \(supported) this reader knows: an app update is needed"
        case let .downgradeRefused(source, installed, offered):
            "\(source) offers version \(offered), older than the installed \(installed); refused"
        case let .locked(path): "another install is running in \(path) (it holds .install.lock)"
        case let .unreachable(source, reason): "cannot read \(source): \(reason)"
        case let .io(path, reason): "cannot write \(path): \(reason)"
        case let .unreadable(path, reason): "cannot read \(path): \(reason)"
        case let .notADeviceFolder(path, reason): "\(path) is not a device folder: \(reason)"
        }
    }
}
