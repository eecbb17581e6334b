import PokedexReader

// The updater lives in the reader library, which knows nothing of exit codes: the
// mapping to sysexits for `pokesync install` is made here, at the edge.

extension UpdateError: PokeSyncFailure {
    public var exitStatus: ExitStatus {
        switch self {
        case .badBundle, .digestMismatch, .newerSchema: .dataError
        case .downgradeRefused: .dataError
        case .locked: .locked
        case .unreachable: .unavailable
        case .io: .ioError
        case .notADeviceFolder: .usage
        }
    }
}
