import PokeArchive

// PokeArchive's tar errors know nothing of exit codes; the mapping to sysexits lives
// here, at the edge, beside the other library errors' (FailureExitStatus.swift).

extension TarError: PokeSyncFailure {
    package var exitStatus: ExitStatus {
        switch self {
        // A damaged, hostile or oversized bundle is bad data, as is a writer given names
        // the exporter should never produce.
        case .corrupt, .truncated, .unsafeEntry, .overLimit, .invalidEntry, .entryNotFound: .dataError
        case .io: .ioError
        }
    }
}
