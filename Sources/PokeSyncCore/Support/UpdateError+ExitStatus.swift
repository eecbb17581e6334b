import PokedexReader
import PokedexUpdater

// The updater lives in the reader library, which knows nothing of exit codes: the
// mapping to sysexits for `pokesync install` is made here, at the edge.

extension UpdateError: PokeSyncFailure {
    package var exitStatus: ExitStatus {
        switch self {
        case .badBundle, .digestMismatch, .newerSchema: .dataError
        case .downgradeRefused: .dataError
        case .locked: .locked
        case .unreachable: .unavailable
        case .io, .unreadable: .ioError
        case .notADeviceFolder: .usage
        }
    }
}

extension BundleCheckError: PokeSyncFailure {
    /// A lying index, a manifest that breaks the format, a delta whose database is not data.
    package var exitStatus: ExitStatus { .dataError }
}

extension DeltaApplyError: PokeSyncFailure {
    package var exitStatus: ExitStatus {
        switch self {
        case .digestMismatch, .invalidChanges: .dataError
        case .io: .ioError
        }
    }
}

extension ContentDigestError: PokeSyncFailure {
    /// A database holding a value the digest cannot encode is not a device database.
    package var exitStatus: ExitStatus { .dataError }
}
