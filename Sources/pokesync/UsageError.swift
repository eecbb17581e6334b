import PokeSyncCore

/// The command line was wrong: exit 64.
struct UsageError: PokeSyncFailure {
    var message: String
    init(_ message: String) { self.message = message }
    var exitStatus: ExitStatus { .usage }
    var description: String { message }
}
