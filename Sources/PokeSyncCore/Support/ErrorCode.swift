/// What went wrong, one name for each kind of failure `pokesync` prints. Every error a
/// command can end with carries one (``PokeSyncError/code``); the exit code is decided
/// here alone, by ``ExitStatus/init(_:)``, the table that
/// <doc:ExitCodes> lists and `ExitCodeTableTests` holds it to.
package enum ErrorCode: String, CaseIterable, Sendable {
    // The source and the crawl.
    /// Some resources still failed after retries, a document that never parsed among them.
    case resourcesFailed
    /// The source cannot be reached, or does not look like a PokeAPI.
    case sourceUnavailable
    /// The source answered with a list or document that is not one.
    case sourceInvalid
    /// An HTTP request to the source failed: refused, TLS, a proxy, a status, a bad body.
    case httpFailed
    /// The source answered its lists, then went silent or failed request after request.
    case sourceSilent

    // The store.
    /// No store at the mirror path: `pokesync full` has not run there.
    case storeMissing
    /// The store is corrupt, or empty.
    case storeCorrupt
    /// The store has a newer schema than this build understands.
    case storeNewerSchema
    /// A kind's list shrank past the guard: refused without `--allow-shrink`.
    case listsShrank
    /// Another process took over this process's run.
    case runTakenOver

    // The mirror folder.
    /// Another pokesync holds the mirror's lock.
    case mirrorLocked
    /// Root asked to write a mirror another user owns.
    case foreignOwner
    /// The command line narrows the mirror without `--allow-shrink`.
    case narrowingRefused
    /// A backup's destination is inside the mirror.
    case backupInsideMirror

    // What the core is asked and reads.
    /// A setting's value, a version, an output folder the core cannot use as asked.
    case badRequest
    /// `mirror.json` is not valid.
    case badConfig
    /// A local file could not be read or written: disk full, permissions.
    case localFile
    /// A document is not valid JSON.
    case invalidJSON

    // Exports and bundles.
    /// A version whose documents cannot make a consistent device database.
    case deviceData
    /// A bundle whose manifest or contents are not what the format says.
    case bundleFormat
    /// A file in the bundles folder that is damaged or not what its name says.
    case damagedBundle
    /// A delta that cannot be built.
    case deltaBuild
    /// A version whose kinds cannot make a bundle: said, and not a failure (`export` exits 0).
    case noBundleForKinds

    // The libraries' errors (SQLite, zlib, tar, the reader, the updater).
    /// SQLite found the store corrupt, not a database, or not the schema this build expects.
    case sqliteData
    /// SQLite found the database busy or locked.
    case sqliteBusy
    /// SQLite could not read or write: disk full, permissions, a file it cannot open.
    case sqliteIO
    /// Compressed data that is corrupt, truncated or too large.
    case compressedData
    /// zlib failed, or a compressed file could not be read or written.
    case compressionIO
    /// An archive that is damaged, hostile or oversized.
    case archiveData
    /// An archive could not be read or written.
    case archiveIO
    /// A device database path with no database.
    case deviceDatabaseMissing
    /// A device database that is damaged, of a newer schema, or lacks what the reader needs.
    case deviceDatabaseData
    /// A bundle or download that is tampered, truncated, of the wrong base or of a newer schema.
    case updateData
    /// An index older than the device's version, without `--allow-downgrade`.
    case downgradeRefused
    /// Another install holds the device folder.
    case deviceLocked
    /// The bundles' host cannot be reached.
    case updateUnreachable
    /// Installing could not read or write the device folder.
    case updateIO
    /// The device path is not a device folder.
    case notADeviceFolder

    // serve.
    /// `serve` cannot listen on its address.
    case cannotListen
    /// `serve`'s system calls or access log failed.
    case serveSystem

    // The command line.
    /// The command line was wrong.
    case usage
    /// `show` found no pokemon or species by that name.
    case notFound
    /// `verify` found damage.
    case verifyFoundDamage

    // Not pokesync's own errors.
    /// Interrupted by SIGINT or SIGTERM.
    case interrupted
    /// An error from the system that pokesync does not name, printed as it came.
    case unclassified

    /// The code of any error: its own when it is pokesync's, ``interrupted`` for a
    /// cancellation, ``unclassified`` for anything else.
    package init(of error: any Error) {
        switch error {
        case let error as any PokeSyncError: self = error.code
        case is CancellationError: self = .interrupted
        default: self = .unclassified
        }
    }
}

extension ExitStatus {
    /// The exit-code table: the one place an error becomes the code the command ends with.
    package init(_ code: ErrorCode) {
        switch code {
        case .resourcesFailed: self = .resourcesFailed
        case .usage, .badRequest, .badConfig, .storeMissing, .narrowingRefused, .backupInsideMirror, .notFound,
             .deviceDatabaseMissing, .notADeviceFolder:
            self = .usage
        case .sourceInvalid, .storeCorrupt, .storeNewerSchema, .listsShrank, .invalidJSON, .deviceData, .bundleFormat,
             .damagedBundle, .deltaBuild, .sqliteData, .compressedData, .archiveData, .deviceDatabaseData, .updateData,
             .downgradeRefused, .verifyFoundDamage:
            self = .dataError
        case .sourceUnavailable, .httpFailed, .sourceSilent, .updateUnreachable, .cannotListen: self = .unavailable
        case .localFile, .sqliteIO, .compressionIO, .archiveIO, .updateIO, .serveSystem, .unclassified: self = .ioError
        case .mirrorLocked, .runTakenOver, .sqliteBusy, .deviceLocked: self = .locked
        case .foreignOwner: self = .notOwner
        case .interrupted: self = .interrupted
        case .noBundleForKinds: self = .success
        }
    }

    /// The code `error` ends a command with (see ``init(_:)``).
    package init(for error: any Error) {
        self.init(ErrorCode(of: error))
    }
}
