import Dispatch
import Foundation

/// The signals a serving process gives its servers, as the application chooses them: those
/// that stop the servers and those that reopen their access logs. Caught from the moment
/// this is made (before the store, the listener or the log are opened), so that a signal
/// that comes while the process starts is never the default action (a SIGHUP's would end
/// it): a stop asked for early stops each server as it is added, at once; a reopen reopens
/// the access logs added so far (one added after it was just opened, or is reopened).
package final class ServerSignals: @unchecked Sendable {
    // @unchecked Sendable: the lists and flags are touched only with `lock` held; the
    // sources are set in init and cancelled in deinit.
    private let lock = NSLock()
    private var sources: [DispatchSourceSignal] = []
    private var servers: [HTTPServer] = []
    private var logs: [AccessLog] = []
    private var stopping = false
    private var hungUp = false

    /// Catches `stop` (each stops the servers) and `reopenLogs` (each reopens their access
    /// logs) from now on; their default action is ignored, and no other signal is touched.
    package init(stop: [Int32], reopenLogs: [Int32]) {
        for (numbers, stops) in [(stop, true), (reopenLogs, false)] {
            for number in numbers {
                // Ignored by the default handler, seen by the dispatch source.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [weak self] in self?.received(stops: stops) }
                source.resume()
                sources.append(source)
            }
        }
    }

    deinit { sources.forEach { $0.cancel() } }

    private func received(stops: Bool) {
        lock.lock()
        if !stops {
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

    /// `server` is stopped by the next stop signal (at once when one came already), and its
    /// access log reopened by a reopen signal.
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
