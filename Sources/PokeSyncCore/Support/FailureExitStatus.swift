import CSQLite
import PokeArchive
import PokeSQLite
import PokedexReader

// The shared layers (PokeSQLite, PokeArchive) know nothing of the command line: the
// mapping of their errors to sysexits codes lives here, at the edge, with the rest.

extension DatabaseError: PokeSyncFailure {
    package var exitStatus: ExitStatus {
        switch primaryCode {
        // pokesync's SQL is fixed, so a plain SQL error (no such table or column) means a
        // store that is not what this build expects: bad data, not an I/O failure.
        case SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_MISMATCH, SQLITE_CONSTRAINT, SQLITE_ERROR, SQLITE_SCHEMA: .dataError
        case SQLITE_BUSY, SQLITE_LOCKED: .locked
        default: .ioError // SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM ...
        }
    }
}

extension CompressionError: PokeSyncFailure {
    package var exitStatus: ExitStatus {
        switch self {
        case .corruptData, .truncated, .outputTooLarge: .dataError
        case .zlib, .fileAccess: .ioError
        }
    }
}

extension PokedexError: PokeSyncFailure {
    package var exitStatus: ExitStatus {
        switch self {
        // A path with no database is a wrong argument; anything else is a damaged one.
        case .missingDatabase: .usage
        default: .dataError
        }
    }
}
