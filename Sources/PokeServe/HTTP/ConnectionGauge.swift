import Foundation

/// The open connections of the whole server against the cap, and the stop flag.
final class ConnectionGauge: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var open = 0
    private var stopping = false
    private var failed = false
    let cap: Int

    init(cap: Int) { self.cap = cap }

    var isStopping: Bool { condition.lock(); defer { condition.unlock() }; return stopping }
    var hasFailed: Bool { condition.lock(); defer { condition.unlock() }; return failed }

    /// Waits until a connection may be accepted; false once stopping.
    func waitForRoom() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while open >= cap && !stopping { _ = condition.wait(until: Date().addingTimeInterval(0.25)) }
        return !stopping
    }

    func take() { condition.lock(); open += 1; condition.unlock() }

    func release() {
        condition.lock()
        open -= 1
        condition.broadcast()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    func fail() {
        condition.lock()
        failed = true
        stopping = true
        condition.broadcast()
        condition.unlock()
    }
}
