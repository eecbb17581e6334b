import Dispatch
import Foundation

/// A small HTTP/1.1 server: one accepting thread and a fixed number of worker threads,
/// each an event loop over non-blocking sockets (epoll on Linux). It serves until
/// SIGTERM or SIGINT, then stops accepting, finishes the replies in flight (within
/// `drainSeconds`) and returns.
package final class HTTPServer: Sendable {
    let listener: Listener
    let limits: HTTPLimits
    private let gauge: ConnectionGauge
    private let workers: [Worker]
    let accessLog: AccessLog?
    /// Headers every answer carries (``Reply/head(keepAlive:date:defaults:)``).
    let defaultHeaders: [(String, String)]

    /// Serves on `listener` (bound already, so a taken address fails before anything
    /// else starts) with `workerCount` event loops, each with its own responder, writing a
    /// line per answer to `accessLog` when given.
    /// - Throws: `HTTPServerError` when a worker's poller or wake pipe cannot be made.
    package init(listener: Listener, limits: HTTPLimits, workerCount: Int, accessLog: AccessLog? = nil,
         defaultHeaders: [(String, String)] = [], makeResponder: @escaping () throws -> Responder) throws(HTTPServerError) {
        self.limits = limits
        self.defaultHeaders = defaultHeaders
        self.accessLog = accessLog
        Self.raiseDescriptorLimit(to: limits.connections + 256)
        self.listener = listener
        gauge = ConnectionGauge(cap: limits.connections, perAddress: limits.connectionsPerAddress)
        var workers: [Worker] = []
        for _ in 0 ..< max(1, workerCount) {
            workers.append(try Worker(limits: limits, gauge: gauge, accessLog: accessLog, defaultHeaders: defaultHeaders,
                                      makeResponder: makeResponder))
        }
        self.workers = workers
    }

    /// Serves until `signals` stops it, with `others` (the metrics' server) beside it,
    /// stopped with it; returns false when a worker could not start. SIGHUP reopens the
    /// access log.
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
        everyone.forEach { $0.accessLog?.finish() }
        return !gauge.hasFailed
    }

    /// Starts the access log's writer, the workers and the acceptor, each thread entering `group`.
    private func start(in group: DispatchGroup) {
        accessLog?.start()
        for worker in workers {
            group.enter()
            let thread = Thread { worker.run(); group.leave() }
            thread.name = "pokesync-serve-worker"
            thread.start()
        }
        group.enter()
        let acceptor = Thread { [listener, workers, gauge, limits, defaultHeaders, accessLog] in
            listener.run(workers: workers, gauge: gauge, limits: limits, defaultHeaders: defaultHeaders, accessLog: accessLog)
            group.leave()
        }
        acceptor.name = "pokesync-serve-accept"
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
