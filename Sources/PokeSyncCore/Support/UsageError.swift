/// The command line was wrong: exit 64.
public struct UsageError: PokeSyncFailure {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var exitStatus: ExitStatus { .usage }
    public var description: String { message }
}
