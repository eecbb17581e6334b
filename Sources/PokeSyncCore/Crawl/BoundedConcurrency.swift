import PokeLocking
import PokeSQLite
/// Runs `work` for every item with at most `limit` running at once: `limit` workers
/// each take the next item as they finish one. When one throws, the others are
/// cancelled and the error is rethrown (`next()` rethrows; leaving the group cancels
/// what is left).
///
/// Long-lived workers rather than a child task per item: a task per item made every
/// finished item wake the parent to add the next child, one more thread hop and task
/// allocation per request in a crawl that is bound by CPU on small machines.
func forEachConcurrently<Item: Sendable>(
    _ items: [Item], limit: Int, _ work: @escaping @Sendable (Item) async throws -> Void
) async throws {
    let cursor = WorkCursor(items)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<min(max(1, limit), items.count) {
            group.addTask {
                while let item = cursor.next() {
                    try Task.checkCancellation()
                    try await work(item)
                }
            }
        }
        while try await group.next() != nil {}
    }
}

/// Hands out the items of an array one at a time to concurrent workers.
private final class WorkCursor<Item: Sendable>: Sendable {
    private let items: [Item]
    private let position = Locked(0)

    init(_ items: [Item]) {
        self.items = items
    }

    /// The next item not yet taken, or nil when all are.
    func next() -> Item? {
        let index = position.withLock { position -> Int in
            defer { position += 1 }
            return position
        }
        return index < items.count ? items[index] : nil
    }
}

/// Errors that end the whole run rather than one job: the store or the local disk
/// failing, the user interrupting, or a server whose TLS certificate this machine does not
/// accept (every request to it would fail the same way; the run resumes once it is
/// trusted). Anything else fails just the job it hit.
func isFatalToRun(_ error: any Error) -> Bool {
    switch error {
    case is CancellationError, is DatabaseError, is StoreError, is LocalFileError: return true
    case HTTPError.tls: return true
    default: return false
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
