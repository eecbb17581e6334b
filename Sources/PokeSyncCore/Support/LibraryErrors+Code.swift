import CSQLite
import PokeArchive
import PokeSQLite
import PokedexReader
import PokedexUpdater

// The shared layers (PokeSQLite, PokeArchive, the reader library and its updater) know
// nothing of the command line: which of pokesync's codes each of their errors is lives
// here, at the edge; the exit code follows from the code in ErrorCode.swift's table.

extension DatabaseError: PokeSyncError {
    package var code: ErrorCode {
        switch primaryCode {
        // pokesync's SQL is fixed, so a plain SQL error (no such table or column) means a
        // store that is not what this build expects: bad data, not an I/O failure.
        case SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_MISMATCH, SQLITE_CONSTRAINT, SQLITE_ERROR, SQLITE_SCHEMA: .sqliteData
        case SQLITE_BUSY, SQLITE_LOCKED: .sqliteBusy
        default: .sqliteIO // SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM ...
        }
    }
}

extension CompressionError: PokeSyncError {
    package var code: ErrorCode {
        switch self {
        case .corruptData, .truncated, .outputTooLarge: .compressedData
        case .zlib, .fileAccess: .compressionIO
        }
    }
}

extension TarError: PokeSyncError {
    package var code: ErrorCode {
        switch self {
        // A damaged, hostile or oversized bundle is bad data, as is a writer given names
        // the exporter should never produce.
        case .corrupt, .truncated, .unsafeEntry, .overLimit, .invalidEntry, .entryNotFound: .archiveData
        case .io: .archiveIO
        }
    }
}

extension PokedexError: PokeSyncError {
    package var code: ErrorCode {
        switch self {
        // A path with no database is a wrong argument; anything else is a damaged one.
        case .missingDatabase: .deviceDatabaseMissing
        case .cannotOpen, .notAPokedex, .newerSchema, .unreadable, .missingTable, .missingColumn, .badValue:
            .deviceDatabaseData
        }
    }
}

extension UpdateError: PokeSyncError {
    package var code: ErrorCode {
        switch self {
        case .badBundle, .digestMismatch, .newerSchema: .updateData
        case .downgradeRefused: .downgradeRefused
        case .locked: .deviceLocked
        case .unreachable: .updateUnreachable
        case .io, .unreadable: .updateIO
        case .notADeviceFolder: .notADeviceFolder
        }
    }
}

extension BundleCheckError: PokeSyncError {
    /// A lying index, a manifest that breaks the format, a delta whose database is not data.
    package var code: ErrorCode { .updateData }
}

extension DeltaApplyError: PokeSyncError {
    package var code: ErrorCode {
        switch self {
        case .digestMismatch, .invalidChanges: .updateData
        case .io: .updateIO
        }
    }
}

extension ContentDigestError: PokeSyncError {
    /// A database holding a value the digest cannot encode is not a device database.
    package var code: ErrorCode { .deviceDatabaseData }
}
