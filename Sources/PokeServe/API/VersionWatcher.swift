import Dispatch
import Foundation

/// Looks at the store every `intervalSeconds` with no request needed: a version `sync`
/// published is loaded onto the board (so `/healthz` and `pokesync_serve_version` name it,
/// and the first public request finds it loaded), and a store replaced under the server is
/// reopened. An idle replica so never looks behind. One query of the latest version a look
/// (and the store's files' `stat`s every quarter second, ``StoreKeeper``).
final class VersionWatcher {
    private let timer: any DispatchSourceTimer
    static let intervalSeconds = 0.5

    init(keeper: StoreKeeper, board: VersionBoard) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pokesync-serve-versions"))
        timer.schedule(deadline: .now() + Self.intervalSeconds, repeating: Self.intervalSeconds, leeway: .milliseconds(100))
        timer.setEventHandler {
            // A store that cannot be read now is the health check's to say; the next look tries again.
            _ = try? keeper.use { store, generation in try board.refresh(store: store, generation: generation) }
        }
        timer.resume()
    }

    func stop() { timer.cancel() }
}
