import Foundation
import PokeSyncCore

/// One event-loop thread: the connections handed to it, a poller, and its own responder
/// (and so its own database connection). Connections never move between workers, so
/// nothing of a connection is shared.
final class Worker: @unchecked Sendable {
    // @unchecked Sendable: everything but `inbox`, `load` and the wake pipe is touched only
    // by the worker's own thread (inside `run`); those three are safe to share.
    private let poller: Poller
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Accepted sockets waiting to be adopted by this worker's thread.
    private let inbox = Locked<[Int32]>([])
    /// Open connections of this worker, read by the acceptor to balance.
    let load = Locked(0)
    private let limits: HTTPLimits
    private let gauge: ConnectionGauge
    private let makeResponder: () throws -> Responder
    private var connections: [Int32: Connection] = [:]
    private var date = HTTPDate()

    init(limits: HTTPLimits, gauge: ConnectionGauge, makeResponder: @escaping () throws -> Responder) throws(ServeError) {
        self.limits = limits
        self.gauge = gauge
        self.makeResponder = makeResponder
        poller = try Poller()
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ServeError.system("pipe", errno) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        _ = poller.add(wakeRead, .read)
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Hands an accepted socket to this worker (from the acceptor's thread).
    func adopt(_ descriptor: Int32) {
        load.withLock { $0 += 1 }
        inbox.withLock { $0.append(descriptor) }
        wake()
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// The loop; returns once `gauge.stopping` is set and every connection is done (or
    /// the drain time is up).
    func run() {
        let responder: Responder
        do { responder = try makeResponder() } catch {
            FileHandle.standardError.write(Data("pokesync: a serve worker cannot start: \(error)\n".utf8))
            gauge.fail()
            return
        }
        var lastSweep = monotonicSeconds()
        var drainUntil: Double?
        while true {
            let stopping = gauge.isStopping
            var now = monotonicSeconds()
            if stopping && drainUntil == nil {
                drainUntil = now + limits.drainSeconds
                for connection in connections.values { connection.stop(now: now) }
                sweepClosed()
            }
            if let drainUntil, connections.isEmpty && inbox.withLock({ $0.isEmpty }) || now > drainUntil { break }
            poller.wait(milliseconds: 250) { event in
                if event.descriptor == wakeRead {
                    var scratch = [UInt8](repeating: 0, count: 64)
                    while read(wakeRead, &scratch, scratch.count) > 0 {}
                    return
                }
                guard let connection = connections[event.descriptor] else { return }
                now = monotonicSeconds()
                let before = connection.interest
                if event.writable && connection.isWriting {
                    connection.writable(responder, date: &date, now: now, stopping: stopping)
                } else if event.readable {
                    connection.readable(responder, date: &date, now: now, stopping: stopping)
                }
                settle(connection, interestBefore: before)
            }
            for descriptor in inbox.withLock({ box -> [Int32] in defer { box.removeAll() }; return box }) {
                let connection = Connection(descriptor: descriptor, limits: limits, now: monotonicSeconds())
                if stopping || !poller.add(descriptor, .read) {
                    connection.finish()
                    release()
                } else {
                    connections[descriptor] = connection
                }
            }
            now = monotonicSeconds()
            if now - lastSweep >= 0.25 {
                lastSweep = now
                for connection in connections.values where now > connection.deadline { connection.finish() }
                sweepClosed()
            }
        }
        for connection in connections.values { connection.finish() }
        sweepClosed()
    }

    private func settle(_ connection: Connection, interestBefore: PollInterest) {
        if connection.phase == .closed {
            poller.remove(connection.descriptor)
            connections[connection.descriptor] = nil
            release()
        } else if connection.interest != interestBefore {
            poller.change(connection.descriptor, connection.interest)
        }
    }

    private func sweepClosed() {
        for (descriptor, connection) in connections where connection.phase == .closed {
            poller.remove(descriptor)
            connections[descriptor] = nil
            release()
        }
    }

    private func release() {
        load.withLock { $0 -= 1 }
        gauge.release()
    }
}
