import Dispatch
import Foundation

/// A small HTTP/1.1 server: one accepting thread and a fixed number of worker threads,
/// each an event loop over non-blocking sockets (epoll on Linux), as its application
/// configures it (``HTTPServerConfiguration``). It serves until its ``ServerSignals`` stop
/// it, then stops accepting, finishes the replies in flight (within `drainSeconds`) and returns.
package final class HTTPServer: Sendable {
    let listener: Listener
    let configuration: HTTPServerConfiguration
    private let gauge: ConnectionGauge
    private let workers: [Worker]
    private let renderThreads: RenderThreads
    var accessLog: AccessLog? { configuration.accessLog }

    /// Serves on `listener` (bound already, so a taken address fails before anything
    /// else starts) as `configuration` says, each worker with its own responder.
    /// - Throws: `HTTPServerError` when a worker's poller or wake pipe cannot be made.
    package init(listener: Listener, configuration: HTTPServerConfiguration,
                 makeResponder: @escaping () throws -> Responder) throws(HTTPServerError) {
        self.configuration = configuration
        let limits = configuration.limits
        Self.raiseDescriptorLimit(to: limits.connections + 256)
        self.listener = listener
        gauge = ConnectionGauge(cap: limits.connections, perAddress: limits.connectionsPerAddress)
        let renderThreads = RenderThreads(count: configuration.workerCount)
        var workers: [Worker] = []
        for _ in 0 ..< max(1, configuration.workerCount) {
            workers.append(try Worker(configuration: configuration, gauge: gauge, renderThreads: renderThreads,
                                      makeResponder: makeResponder))
        }
        self.workers = workers
        self.renderThreads = renderThreads
    }

    /// Serves until `signals` stops it, with `others` (the metrics' server) beside it,
    /// stopped with it; returns false when a worker could not start. `signals` also
    /// reopens the access logs.
    package func run(alongside others: [HTTPServer] = [], signals: ServerSignals) -> Bool {
        let everyone = [self] + others
        everyone.forEach { signals.add($0) }
        // The others end with this server (also when its workers could not start).
        let mine = DispatchGroup(), theirs = DispatchGroup()
        start(in: mine)
        for other in others { other.start(in: theirs) }
        mine.wait()
        others.forEach { $0.stop() }
        theirs.wait()
        for server in everyone {
            server.renderThreads.stop()
            server.workers.forEach { $0.dropRendered() }
            guard let log = server.accessLog else { continue }
            log.finish()
            // The metric is gone with the process: its last figure is said.
            let dropped = log.droppedLines
            if dropped > 0 { server.configuration.report("stopped; \(dropped) lines of the access log \(log.name) were dropped in all") }
        }
        return !gauge.hasFailed
    }

    /// Starts the access log's writer, the render threads, the workers and the acceptor,
    /// the last two entering `group`.
    private func start(in group: DispatchGroup) {
        accessLog?.start(threadName: "\(configuration.threadName)-log")
        renderThreads.start(name: "\(configuration.threadName)-render")
        for worker in workers {
            group.enter()
            let thread = Thread { worker.run(); group.leave() }
            thread.name = "\(configuration.threadName)-worker"
            thread.start()
        }
        group.enter()
        let acceptor = Thread { [listener, workers, gauge, configuration] in
            listener.run(workers: workers, gauge: gauge, configuration: configuration)
            group.leave()
        }
        acceptor.name = "\(configuration.threadName)-accept"
        acceptor.start()
    }

    /// What the server has done so far, for the metrics (any thread).
    package func traffic() -> TrafficReport {
        var report = TrafficReport()
        for worker in workers { worker.counts.withLock { report.counts.add($0) } }
        (report.openConnections, report.acceptedConnections, report.refusedPerAddress) = gauge.figures
        report.accessLogDropped = accessLog?.droppedLines ?? 0
        return report
    }

    /// Lifts the soft limit on open descriptors towards `wanted` (within the hard limit),
    /// so the connection cap, not a default of 1024 descriptors, is what bounds clients.
    static func raiseDescriptorLimit(to wanted: Int) {
        #if os(Linux)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted))
        _ = setrlimit(resource, &limit)
    }

    /// Stops accepting and lets the workers drain (any thread).
    func stop() {
        gauge.stop()
        listener.wake()
        workers.forEach { $0.wake() }
    }
}
