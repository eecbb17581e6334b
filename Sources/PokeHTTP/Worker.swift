import Foundation
import PokeLocking

/// One event-loop thread: the connections handed to it, a poller, and its own responder
/// (its own view of the served version). Connections never move between workers, so
/// nothing of a connection is shared.
final class Worker: @unchecked Sendable {
    // @unchecked Sendable: everything but `inbox`, `rendered`, `load`, `counts`, the render
    // threads and the wake pipe is touched only by the worker's own thread (inside `run`);
    // those are safe to share.
    private let poller: Poller
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Accepted sockets waiting to be adopted by this worker's thread.
    private let inbox = Locked<[(Int32, ClientAddress)]>([])
    /// Replies the render threads made, waiting for this worker's thread to deliver them
    /// to their connections: by descriptor and serial, as a descriptor may have been
    /// closed and reused by a new connection meanwhile.
    private let rendered = Locked<[(descriptor: Int32, serial: Int, reply: Reply)]>([])
    /// Where deferred replies are made (``Answer/deferred(_:)``): the server's, shared by
    /// its workers.
    private let renderThreads: RenderThreads
    /// The serial of the next connection adopted.
    private var nextSerial = 0
    /// Open connections of this worker, read by the acceptor to balance.
    let load = Locked(0)
    private let configuration: HTTPServerConfiguration
    private let limits: HTTPLimits
    private let gauge: ConnectionGauge
    private let makeResponder: () throws -> Responder
    /// What this worker counted, handed over once a loop; read by the metrics.
    let counts = Locked(TrafficCounts())
    private var connections: [Int32: Connection] = [:]
    /// Connections with pipelined requests left over from their last turn, in order.
    private var ready: [Int32] = []
    private var readySet = Set<Int32>()
    /// Gives the core up after each batch of events while that costs little.
    private var coreYield = CoreYield()
    init(configuration: HTTPServerConfiguration, gauge: ConnectionGauge, renderThreads: RenderThreads,
         makeResponder: @escaping () throws -> Responder) throws(HTTPServerError) {
        self.configuration = configuration
        self.renderThreads = renderThreads
        limits = configuration.limits
        self.gauge = gauge
        self.makeResponder = makeResponder
        poller = try Poller()
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw HTTPServerError.system("pipe", errno) }
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
    func adopt(_ descriptor: Int32, address: ClientAddress) {
        load.withLock { $0 += 1 }
        inbox.withLock { $0.append((descriptor, address)) }
        wake()
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// The loop; returns once `gauge.stopping` is set and every connection is done (or
    /// the drain time is up).
    ///
    /// Each turn: new connections are adopted (and what they sent read at once), then the
    /// connections with pipelined requests left get their next share, then the sockets
    /// that are ready, each part for at most `turnSeconds` (a ready socket skipped is
    /// reported again: epoll is level-triggered). So a new client waits at most about a
    /// turn, whatever the others ask for. After a turn with work (events, or requests left
    /// waiting), the worker gives its core up for a moment (``CoreYield``), so a busy worker
    /// shares its core at a turn's grain rather than the scheduler tick's.
    func run() {
        let context: WorkerContext
        do {
            context = WorkerContext(responder: try makeResponder(), configuration: configuration, shared: counts) {
                [self] make, descriptor, serial, ticket in render(make, descriptor: descriptor, serial: serial, ticket: ticket)
            }
        } catch {
            configuration.report("a worker cannot start: \(error)")
            gauge.fail()
            return
        }
        var lastSweep = monotonicSeconds(), lastShed = lastSweep
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
            adoptNewConnections(context, stopping: stopping)
            deliverRendered(context, stopping: stopping)
            giveTurns(context, stopping: stopping)
            let turnEnds = monotonicSeconds() + limits.turnSeconds
            let pending = !ready.isEmpty || !inbox.withLock({ $0.isEmpty }) || !rendered.withLock({ $0.isEmpty })
            let batch = poller.wait(milliseconds: pending ? 0 : 250) { event in
                if event.descriptor == wakeRead {
                    var scratch = [UInt8](repeating: 0, count: 64)
                    while read(wakeRead, &scratch, scratch.count) > 0 {}
                    return
                }
                guard let connection = connections[event.descriptor] else { return }
                now = monotonicSeconds()
                guard now <= turnEnds else { return }
                if event.writable && connection.isWriting {
                    handle(connection) { $0.writable(context, now: now, stopping: stopping) }
                } else if event.readable {
                    handle(connection) { $0.readable(context, now: now, stopping: stopping) }
                }
            }
            // A turn with work: events (the wake pipe's included), or requests left waiting.
            if batch > 0 || pending { coreYield.afterBatch() }
            now = monotonicSeconds()
            if gauge.wantsRoom { makeRoom(context, now: now) }
            if now - lastShed >= 0.1 {
                lastShed = now
                if configuration.memory.liveBytes > limits.shedBytes { shed(context, now: now) }
            }
            if now - lastSweep >= 0.25 {
                lastSweep = now
                for connection in connections.values where now > connection.deadline {
                    if let reason = connection.deadlineReason { context.closed(reason) }
                    connection.finish()
                }
                sweepClosed()
            }
            context.handOver(now: now)
        }
        for connection in connections.values { connection.finish() }
        sweepClosed()
        context.handOver(now: monotonicSeconds(), force: true)
    }

    /// Takes the connections the acceptor handed over, each read at once (its request is
    /// usually there already); a burst of them past the turn's time waits for its
    /// readiness events instead.
    private func adoptNewConnections(_ context: WorkerContext, stopping: Bool) {
        let now = monotonicSeconds(), turnEnds = now + limits.turnSeconds
        for (descriptor, address) in inbox.withLock({ box -> [(Int32, ClientAddress)] in defer { box.removeAll() }; return box }) {
            // Each its own time, in the order accepted: the oldest head goes first at the cap.
            nextSerial += 1
            let connection = Connection(descriptor: descriptor, serial: nextSerial, address: address,
                                        configuration: configuration, now: monotonicSeconds())
            if stopping || !poller.add(descriptor, .read) {
                connection.finish()
                release(connection)
            } else {
                connections[descriptor] = connection
                guard monotonicSeconds() <= turnEnds else { continue }
                handle(connection) { $0.readable(context, now: monotonicSeconds(), stopping: stopping) }
            }
        }
    }

    /// Makes `make`'s reply on the render threads, then hands it back to this worker's
    /// loop, unless its connection closed meanwhile; false when too many wait already.
    private func render(_ make: @escaping @Sendable () -> Reply, descriptor: Int32, serial: Int,
                        ticket: RenderTicket) -> Bool {
        renderThreads.submit { [self] in
            guard !ticket.isCancelled else { return }
            let reply = make()
            guard !ticket.isCancelled else { return }
            rendered.withLock { $0.append((descriptor, serial, reply)) }
            wake()
        }
    }

    /// Lets go of replies made for connections this worker no longer has (once the
    /// render threads have ended).
    func dropRendered() {
        rendered.withLock { $0.removeAll() }
    }

    /// Gives each reply made on the render threads to its connection, still open (one
    /// closed meanwhile, its client gone or its deadline passed, is not answered).
    private func deliverRendered(_ context: WorkerContext, stopping: Bool) {
        let done = rendered.withLock { box -> [(descriptor: Int32, serial: Int, reply: Reply)] in
            defer { box.removeAll() }
            return box
        }
        for (descriptor, serial, reply) in done {
            guard let connection = connections[descriptor], connection.serial == serial else { continue }
            handle(connection) { $0.resume(reply, context, now: monotonicSeconds(), stopping: stopping) }
        }
    }

    /// Gives the connections with pipelined requests left their next share, in order, for
    /// at most the turn's time (the rest keep their place for the next turn).
    private func giveTurns(_ context: WorkerContext, stopping: Bool) {
        let waiting = ready
        ready.removeAll(keepingCapacity: true)
        readySet.removeAll(keepingCapacity: true)
        let turnEnds = monotonicSeconds() + limits.turnSeconds
        for descriptor in waiting {
            guard let connection = connections[descriptor] else { continue }
            if monotonicSeconds() > turnEnds {
                if readySet.insert(descriptor).inserted { ready.append(descriptor) }
                continue
            }
            handle(connection) { $0.turn(context, now: monotonicSeconds(), stopping: stopping) }
        }
    }

    /// Runs `body` on `connection`, then updates the poller, the ready list and the count.
    private func handle(_ connection: Connection, _ body: (Connection) -> Void) {
        let before = connection.interest
        body(connection)
        if connection.phase == .closed {
            poller.remove(connection.descriptor)
            connections[connection.descriptor] = nil
            release(connection)
            return
        }
        if connection.interest != before { poller.change(connection.descriptor, connection.interest) }
        if connection.wantsTurn && readySet.insert(connection.descriptor).inserted { ready.append(connection.descriptor) }
    }

    /// At the connection cap: closes this worker's longest-idle connection that has been
    /// answered, or when none is idle the one whose head has been arriving longest, if that is
    /// at least `slowHeadSeconds` (clients that trickle heads, or connect and send nothing,
    /// would otherwise hold every slot until their head deadlines), unless another worker
    /// closed one for this wait meanwhile. Never a connection whose request waits unread in
    /// the kernel, a head younger than `slowHeadSeconds` (a client just accepted, its request
    /// maybe still on its way) or one with replies being written.
    private func makeRoom(_ context: WorkerContext, now: Double) {
        let idle = connections.values.filter(\.isIdleAfterAnswer).sorted { $0.idleSince < $1.idleSince }
        let slow = connections.values.filter { $0.isReadingHead && now - $0.headSince >= limits.slowHeadSeconds }
            .sorted { $0.headSince < $1.headSince }
        for (candidates, reason) in [(idle, CloseReason.capIdle), (slow, .capSlowHead)] {
            for candidate in candidates where !candidate.hasUnreadInput {
                guard gauge.claimEviction() else { return }
                candidate.finish()
                context.closed(reason)
                sweepClosed()
                return
            }
        }
    }

    /// Memory is short: closes the connections whose replies have not moved for a while
    /// and hold bodies of their own (not the cache's), longest stalled first, until the
    /// bodies alive are back under the bound. Their clients asked and did not read; those
    /// that read keep the memory.
    private func shed(_ context: WorkerContext, now: Double) {
        let stalled = connections.values.filter {
            $0.isWriting && now - $0.lastProgress >= limits.shedAfterSeconds && $0.ownedBytes() > 0
        }.sorted { $0.lastProgress < $1.lastProgress }
        for connection in stalled {
            guard configuration.memory.liveBytes > limits.shedBytes else { break }
            connection.finish()
            context.closed(.shed)
        }
        sweepClosed()
    }

    private func sweepClosed() {
        for (descriptor, connection) in connections where connection.phase == .closed {
            poller.remove(descriptor)
            connections[descriptor] = nil
            release(connection)
        }
    }

    private func release(_ connection: Connection) {
        load.withLock { $0 -= 1 }
        gauge.release(connection.address)
    }
}
