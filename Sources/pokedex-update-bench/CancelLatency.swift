import Foundation
import PokedexUpdater

/// `pokedex-update-bench BUNDLES WORK [BASE_BUNDLES]`: how long a cancelled update takes
/// to return, in each phase (<doc:PokedexUpdater/Installing#Cancelling-and-blocking>: 100 ms at most). For each phase, a fresh device in
/// WORK (installed from BASE_BUNDLES first when given, so that BUNDLES' delta applies)
/// starts updating from BUNDLES; 15 ms after the update reports the phase (at once for
/// the short switch) its task is cancelled, and the time to the update's return is taken.
/// Prints one JSON object: per phase the result ("cancelled", or "finished" when the
/// update ended first), the phase the cancel landed in and the latency in ms; and the most.
enum CancelLatency {
    static let phases = ["downloading", "extracting", "building", "switching"]

    // `phase` is reached only under `lock`.
    final class Probe: @unchecked Sendable {
        private let lock = NSLock()
        private var phase = "starting"
        var current: String { lock.withLock { phase } }

        func saw(_ step: UpdateProgress) {
            lock.withLock { phase = step.phaseName }
        }
    }

    static func run(bundles: URL, work: URL, base: URL?) async throws -> [String: Any] {
        var report: [String: Any] = [:]
        var most = 0.0
        for phase in phases {
            let device = work.appendingPathComponent("cancel-\(phase)", isDirectory: true)
            try? FileManager.default.removeItem(at: device)
            if let base { _ = try await Updater(folder: device).update(from: base) }
            let probe = Probe()
            let task = Task { try await Updater(folder: device).update(from: bundles, progress: probe.saw) }
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(120)
            while probe.current != phase, clock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            if phase != "switching" { try await Task.sleep(for: .milliseconds(15)) }
            let landed = probe.current
            let cancelled = clock.now
            task.cancel()
            let result: String
            do { _ = try await task.value; result = "finished" } catch is CancellationError { result = "cancelled" } catch {
                result = "\(error)"
            }
            let elapsed = clock.now - cancelled
            let latency = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
            most = max(most, latency)
            report[phase] = ["result": result, "landed_in": landed, "latency_ms": latency]
            try? FileManager.default.removeItem(at: device)
        }
        report["max_latency_ms"] = most
        return report
    }
}
