import PokeSyncCore

/// The command line was wrong: exit 64.
struct UsageError: PokeSyncError {
    var message: String
    init(_ message: String) { self.message = message }
    var code: ErrorCode { .usage }
    var description: String { message }
}
