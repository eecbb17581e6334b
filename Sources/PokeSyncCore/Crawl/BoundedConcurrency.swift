import PokeSQLite
/// Runs `work` for every item with at most `limit` running at once: the group is
/// filled to `limit`, then one starts as one finishes. When one throws, the others
/// are cancelled and the error is rethrown (`next()` rethrows; leaving the group
/// cancels what is left).
func forEachConcurrently<Item: Sendable>(
    _ items: [Item], limit: Int, _ work: @escaping @Sendable (Item) async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var pending = items.makeIterator()
        for _ in 0..<max(1, limit) {
            guard let item = pending.next() else { break }
            group.addTask { try await work(item) }
        }
        while try await group.next() != nil {
            try Task.checkCancellation()
            if let item = pending.next() {
                group.addTask { try await work(item) }
            }
        }
    }
}

/// Errors that end the whole run rather than one job: the store or the local disk
/// failing, or the user interrupting. Anything else fails just the job it hit.
func isFatalToRun(_ error: any Error) -> Bool {
    switch error {
    case is CancellationError, is DatabaseError, is StoreError, is LocalFileError: return true
    default: return false
    }
}

/// A local file could not be written or read (disk full, permissions): exit 74.
public struct LocalFileError: PokeSyncFailure {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    public var exitStatus: ExitStatus { .ioError }
    public var description: String { "\(path): \(reason)" }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
