import Foundation

/// A client's address as the gauge counts it: an IPv4 address, or an IPv6 one (an
/// IPv4-mapped IPv6 address counts as its IPv4 address).
struct ClientAddress: Hashable, Sendable {
    var high: UInt64
    var low: UInt64
}

/// The open connections of the whole server against the cap and against the per-address
/// share, the request for room at the cap, and the stop flag.
final class ConnectionGauge: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var open = 0
    private var byAddress: [ClientAddress: Int] = [:]
    private var roomWanted = false
    private var stopping = false
    private var failed = false
    private var accepted = 0
    private var refused = 0
    let cap: Int
    let perAddress: Int

    init(cap: Int, perAddress: Int) {
        self.cap = cap
        self.perAddress = perAddress
    }

    var isStopping: Bool { condition.lock(); defer { condition.unlock() }; return stopping }
    var hasFailed: Bool { condition.lock(); defer { condition.unlock() }; return failed }
    var isFull: Bool { condition.lock(); defer { condition.unlock() }; return open >= cap }

    /// At the cap: asks the workers for room (one of them closes an idle connection, see
    /// ``claimEviction()``) and returns true; false when there is room.
    func askForRoom() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard open >= cap else { return false }
        roomWanted = true
        return true
    }

    /// Waits (at most `seconds`) while the cap is reached; false once stopping.
    func waitForRoom(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let until = Date().addingTimeInterval(seconds)
        while open >= cap && !stopping {
            guard condition.wait(until: until) else { break }
        }
        return !stopping
    }

    /// Counts a connection from `address`; false (nothing counted) when that address has
    /// its share already.
    func take(_ address: ClientAddress) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let held = byAddress[address, default: 0]
        guard held < perAddress else {
            refused += 1
            return false
        }
        byAddress[address] = held + 1
        open += 1
        accepted += 1
        return true
    }

    /// Connections open, accepted and refused (their address held its share) so far.
    var figures: (open: Int, accepted: Int, refused: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (open, accepted, refused)
    }

    func release(_ address: ClientAddress) {
        condition.lock()
        open -= 1
        let held = byAddress[address, default: 1] - 1
        byAddress[address] = held > 0 ? held : nil
        if open < cap { roomWanted = false }
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the acceptor waits for room (a worker with an idle connection closes one).
    var wantsRoom: Bool { condition.lock(); defer { condition.unlock() }; return roomWanted }

    /// True once per wait for room: the caller closes one idle connection.
    func claimEviction() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard roomWanted, open >= cap else { return false }
        roomWanted = false
        return true
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
