/// Exit codes of the `pokesync` command (sysexits), which cron wrappers rely on.
package enum ExitStatus: Int32, CaseIterable, Sendable {
    /// The command did what was asked.
    case success = 0
    /// The run finished, but some resources still failed after retries; no version was published.
    case resourcesFailed = 1
    /// The run published (or found no changes), but a file host failed or lost files: some
    /// linked files were carried from the version before, or left for the next run; the last
    /// lines say how many and from which host. `export`: the bundle and index were written,
    /// but without sprites their host has not delivered yet or a delta from an old version
    /// that cannot be built.
    case filesCarried = 2
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// Bad data: verification failed, or the store is corrupt (EX_DATAERR).
    case dataError = 65
    /// The source could not be reached, does not look like a PokeAPI, or fell silent after its
    /// lists (`SourceWatch`: the run stops, the next resumes) (EX_UNAVAILABLE).
    case unavailable = 69
    /// Reading or writing local files failed: disk full, permissions (EX_IOERR).
    case ioError = 74
    /// Another pokesync holds the mirror's lock (EX_TEMPFAIL).
    case locked = 75
    /// Root asked to write a mirror folder another user owns (EX_NOPERM): run it as the owner.
    case notOwner = 77
    /// Interrupted by SIGINT or SIGTERM (the shell's 128 + SIGINT); the run resumes next time.
    case interrupted = 130
}

/// An error `pokesync` prints as one line that names what happened and what to do, with
/// the ``ErrorCode`` that says which kind of failure it is (the exit code follows from the
/// code alone: ``ExitStatus/init(_:)``).
package protocol PokeSyncError: Error, CustomStringConvertible {
    var code: ErrorCode { get }
}

extension PokeSyncError {
    /// The code the command ends with, from the one table (``ExitStatus/init(_:)``).
    package var exitStatus: ExitStatus { ExitStatus(code) }
}
