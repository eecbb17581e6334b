import Foundation
import PokeLocking

/// One slot per task of a `DispatchQueue.concurrentPerform`, filled from any thread.
/// The `Locked` array is what makes the shared array safe to fill concurrently; each slot is
/// written once.
final class ParallelResults<Value: Sendable>: Sendable {
    private let slots: Locked<[Result<Value, any Error>?]>

    init(count: Int) { slots = Locked(Array(repeating: nil, count: count)) }

    func set(_ index: Int, _ result: sending Result<Value, any Error>) {
        slots.withLock { $0[index] = result }
    }

    /// Every result, in index order. Call after the parallel work has returned.
    func take() -> [Result<Value, any Error>] {
        slots.withLock { slots in slots.map { $0 ?? .failure(CancellationError()) } }
    }
}
