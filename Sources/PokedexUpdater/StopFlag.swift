import Foundation
import PokeLocking

/// The cancellation of one blocking step of an update, as the step's thread sees it: that
/// thread runs no Swift task, so `Task.isCancelled` is false there whatever happens; the
/// task's cancellation handler raises this flag instead, and the step polls it (between
/// chunks, files, and in SQLite's progress handler every 10,000 VM steps).
final class StopFlag: Sendable {
    private let stopped = Locked(false)

    /// Whether the task that started the step was cancelled.
    var isStopped: Bool { stopped.withLock { $0 } }

    /// Raised by the task's cancellation handler.
    func stop() { stopped.withLock { $0 = true } }

    /// - Throws: `CancellationError` once the flag is raised.
    func check() throws {
        if isStopped { throw CancellationError() }
    }
}
