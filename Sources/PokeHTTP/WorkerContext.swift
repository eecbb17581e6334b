import Foundation
import PokeLocking

/// What a worker's connections share on the worker's thread: the responder, the `Date`
/// header's clock, the counts and the access-log lines not yet handed over. Used by that
/// thread only; `shared` is where the counts go for the metrics to read.
final class WorkerContext {
    let responder: Responder
    // Changed in place on every answer, on the worker's thread alone: unchecked, as the
    // connection's queue is (Connection.swift says why).
    @exclusivity(unchecked) var date = HTTPDate()
    /// The lines every head of this server writes alike.
    let framing: HeadFraming
    /// Room for the pieces one `writev` sends, reused by every write of the worker.
    let vectors = UnsafeMutablePointer<iovec>.allocate(capacity: vectorCount)
    static let vectorCount = 16
    @exclusivity(unchecked) private(set) var counts = TrafficCounts()
    /// The answers since the last hand-over, by route and status: a few entries, found by a
    /// look along this short array (route names are literals: compared by their address),
    /// made `String`s only at the hand-over, not hashed into `counts.answers` every answer.
    @exclusivity(unchecked) private var tally: [(route: StaticString, status: Int, count: Int)] = []
    var log: AccessLogBuffer?
    /// The counts handed over, read by the metrics' thread.
    let shared: Locked<TrafficCounts>
    /// Hands a deferred reply's work to the render threads, for the connection of this
    /// descriptor and serial while `ticket` is not cancelled (``Worker``); false when too
    /// many wait already.
    let render: Render

    typealias Render = (_ make: @escaping @Sendable () -> Reply, _ descriptor: Int32, _ serial: Int,
                        _ ticket: RenderTicket) -> Bool

    init(responder: Responder, configuration: HTTPServerConfiguration, shared: Locked<TrafficCounts>,
         render: @escaping Render) {
        self.responder = responder
        self.render = render
        framing = HeadFraming(defaults: configuration.defaultHeaders, server: configuration.serverName)
        let log = configuration.accessLog
        self.shared = shared
        self.log = log.map(AccessLogBuffer.init)
    }

    deinit { vectors.deallocate() }

    /// One answer queued: counted, and logged when there is an access log.
    /// `started`: when the request's head began to arrive (its time is logged from then).
    func answered(_ reply: Reply, request: RequestHead?, address: @autoclosure () -> String, bodyBytes: Int, started: Double) {
        count(reply.route, reply.status.code)
        guard log != nil else { return }
        let seconds = started.isFinite ? monotonicSeconds() - started : 0
        log!.append(address: address(), request: request, status: reply.status.code, bodyBytes: bodyBytes, seconds: seconds)
    }

    private func count(_ route: StaticString, _ status: Int) {
        for index in tally.indices where tally[index].status == status && Self.same(tally[index].route, route) {
            tally[index].count += 1
            return
        }
        // The same name written in two places may have two addresses: two entries, summed
        // at the hand-over.
        tally.append((route, status, 1))
    }

    /// The same literal (a one-scalar literal has no address: compared by its text).
    private static func same(_ one: StaticString, _ other: StaticString) -> Bool {
        guard one.hasPointerRepresentation && other.hasPointerRepresentation else { return one.description == other.description }
        return one.utf8Start == other.utf8Start && one.utf8CodeUnitCount == other.utf8CodeUnitCount
    }

    func sent(_ bytes: Int) { counts.sentBytes += bytes }

    func closed(_ reason: CloseReason) { counts.closed[reason, default: 0] += 1 }

    /// Hands the counts to `shared` (one lock a loop of the worker, none an answer) and the
    /// log lines to the access log when due.
    func handOver(now: Double, force: Bool = false) {
        if !tally.isEmpty {
            for (route, status, count) in tally {
                counts.answers[TrafficCounts.Answer(route: route.description, status: status), default: 0] += count
            }
            tally.removeAll(keepingCapacity: true)
        }
        if !counts.isEmpty {
            shared.withLock { $0.add(counts) }
            counts.reset()
        }
        log?.handOver(now: now, force: force)
    }
}

extension ClientAddress: CustomStringConvertible {
    /// As the access log writes it: `127.0.0.1` (an IPv4 client, held as `::ffff:127.0.0.1`),
    /// or an IPv6 address in its short form.
    var description: String {
        if high == 0 && low >> 32 == 0xFFFF {
            return "\(low >> 24 & 255).\(low >> 16 & 255).\(low >> 8 & 255).\(low & 255)"
        }
        if high == .max && low == .max { return "-" }
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0 ..< 8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, bytes, &text, socklen_t(text.count)) != nil else { return "-" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
