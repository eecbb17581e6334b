import PokedexReader
/// What an update did.
public struct UpdateResult: Sendable, Equatable {
    /// How the installed version arrived.
    public enum Kind: Sendable, Equatable {
        /// A delta from the version the device had.
        case delta
        /// The full bundle.
        case full
        /// Nothing to do: the device already had the index's version.
        case alreadyCurrent
    }

    /// The version `current` points at now.
    public var installedVersion: Int
    /// The version the device had before, when it had one it could name.
    public var fromVersion: Int?
    /// How it got there: a delta, the full bundle, or nothing to do.
    public var kind: Kind
    /// Bytes downloaded (or copied from a folder source), the index excluded.
    public var bytesDownloaded: Int
    /// Pokemon ids the new version has and the old one did not (all of them on a first install).
    public var addedPokemon: [Int]
    /// Pokemon ids the old version had and the new one does not: an app tidies its favorites with them.
    public var removedPokemon: [Int]
}

/// Where an update is, for a progress line.
public enum UpdateProgress: Sendable, Equatable {
    /// Reading the index (a conditional request over HTTP).
    case readingIndex
    /// Downloading `file`: `bytes` of `total` so far.
    case downloading(file: String, bytes: Int, total: Int)
    /// Checking and extracting `file`.
    case extracting(file: String)
    /// Building `versions/N`: a delta applied to a copy, or the full bundle's database, and its digest checked.
    case building(version: Int)
    /// Switching `current` to the new version, then removing the old one.
    case switching(version: Int)

    /// The phase's name without its details (`downloading`), as measurements and tests name it.
    package var phaseName: String {
        switch self {
        case .readingIndex: "readingIndex"
        case .downloading: "downloading"
        case .extracting: "extracting"
        case .building: "building"
        case .switching: "switching"
        }
    }
}
