import Foundation
import PokedexReader
@testable import PokeSyncCore

/// Cancels an update a set time after it enters a phase and measures how long the update
/// then takes to return: <doc:PokedexReader/Installing#Cancelling-and-blocking> allows 100 ms at most, in every phase.
final class CancellationProbe: @unchecked Sendable {
    /// What one cancelled update did.
    struct Outcome: CustomStringConvertible {
        /// "cancelled", "finished" or the error.
        var result: String
        /// The phase the update was in when the cancel was sent.
        var phaseAtCancel: String
        /// From `cancel()` to the update's return.
        var latency: Duration
        var description: String { "\(result) in \(phaseAtCancel) after \(latency.milliseconds) ms" }
    }

    // `phase` is reached only under `lock`.
    private let lock = NSLock()
    private var phase = "starting"

    /// The progress callback to hand the updater.
    func saw(_ step: UpdateProgress) {
        lock.withLock { phase = step.phaseName }
    }

    var currentPhase: String { lock.withLock { phase } }

    /// Runs `update`, waits for `phase`, lets `delay` pass, cancels, and times the return.
    static func run(cancelling phase: String, after delay: Duration,
                    _ update: @escaping @Sendable (CancellationProbe) async throws -> UpdateResult) async -> Outcome {
        let probe = CancellationProbe()
        let task = Task { try await update(probe) }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(120)
        // Polling, not a callback: the progress callback runs on the updater's task, which must not wait.
        while probe.currentPhase != phase, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        try? await Task.sleep(for: delay)
        let phaseAtCancel = probe.currentPhase
        let cancelled = clock.now
        task.cancel()
        let result: String
        do { _ = try await task.value; result = "finished" } catch is CancellationError { result = "cancelled" } catch {
            result = "\(error)"
        }
        return Outcome(result: result, phaseAtCancel: phaseAtCancel, latency: clock.now - cancelled)
    }
}

extension Duration {
    /// Whole milliseconds, for messages.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
