import Foundation
import PokedexReader
import PokedexUpdater
@testable import PokeSyncCore

/// Cancels an update a set time after it enters a phase and measures how long the update
/// then takes to return: <doc:PokedexUpdater/Installing#Cancelling-and-blocking> allows 100 ms at most, in every phase.
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

    // `phase`, `cancelOnEntry`, `entered` and `task` are reached only under `lock`.
    private let lock = NSLock()
    private var phase = "starting"
    /// The phase whose first progress report cancels the update, for `runCancellingOnEntry`.
    private var cancelOnEntry: String?
    private var entered = false
    private var task: Task<UpdateResult, any Error>?

    /// The progress callback to hand the updater.
    func saw(_ step: UpdateProgress) {
        lock.withLock {
            phase = step.phaseName
            // `cancel()` only sets a flag: the updater's task does not wait here.
            if phase == cancelOnEntry, !entered {
                entered = true
                task?.cancel()
            }
        }
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

extension CancellationProbe {
    /// Runs `update` and cancels it from its own first progress report of `phase`: the cancel
    /// lands inside that phase however busy the machine is (a poller's sleep can oversleep a
    /// whole phase under load). For what a cancel leaves behind, not for its latency.
    static func runCancellingOnEntry(_ phase: String,
                                     _ update: @escaping @Sendable (CancellationProbe) async throws -> UpdateResult) async -> Outcome {
        let probe = CancellationProbe()
        probe.lock.withLock { probe.cancelOnEntry = phase }
        let task = Task { try await update(probe) }
        probe.lock.withLock {
            probe.task = task
            // The phase may have begun before the handle was here.
            if probe.entered { task.cancel() }
        }
        let clock = ContinuousClock()
        let started = clock.now
        let result: String
        do { _ = try await task.value; result = "finished" } catch is CancellationError { result = "cancelled" } catch {
            result = "\(error)"
        }
        let reached = probe.lock.withLock { probe.entered }
        return Outcome(result: result, phaseAtCancel: reached ? phase : "never \(phase)", latency: clock.now - started)
    }
}

extension Duration {
    /// Whole milliseconds, for messages.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
