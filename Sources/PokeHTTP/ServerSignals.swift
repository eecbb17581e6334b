import Dispatch
import Foundation

/// SIGTERM, SIGINT and SIGHUP of a serving process, caught from the moment this is made
/// (before the store, the listener or the log are opened), so that a signal that comes
/// while the process starts is never the default action (SIGHUP's would end it): a stop
/// asked for early stops each server as it is added, at once; a SIGHUP reopens the access
/// logs added so far (one added after a SIGHUP was just opened, or is reopened).
package final class ServerSignals: @unchecked Sendable {
    // @unchecked Sendable: the lists and flags are touched only with `lock` held; the
    // sources are set in init and cancelled in deinit.
    private let lock = NSLock()
    private var sources: [DispatchSourceSignal] = []
    private var servers: [HTTPServer] = []
    private var logs: [AccessLog] = []
    private var stopping = false
    private var hungUp = false

    package init() {
        StandardStreams.prepare()
        for number in [SIGTERM, SIGINT, SIGHUP] {
            // Ignored by the default handler, seen by the dispatch source.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
            sources.append(source)
        }
    }

    deinit { sources.forEach { $0.cancel() } }

    private func received(_ number: Int32) {
        lock.lock()
        if number == SIGHUP {
            hungUp = true
            let logs = self.logs
            lock.unlock()
            logs.forEach { $0.reopen() }
            return
        }
        stopping = true
        let servers = self.servers
        lock.unlock()
        servers.forEach { $0.stop() }
    }

    /// `server` is stopped by the next SIGTERM or SIGINT (at once when one came already),
    /// and its access log reopened by SIGHUP.
    package func add(_ server: HTTPServer) {
        lock.lock()
        servers.append(server)
        var reopened: AccessLog?
        if let log = server.accessLog, !logs.contains(where: { $0 === log }) {
            logs.append(log)
            if hungUp { reopened = log }
        }
        let stop = stopping
        lock.unlock()
        reopened?.reopen()
        if stop { server.stop() }
    }
}
