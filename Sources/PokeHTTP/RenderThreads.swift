import Dispatch
import Foundation
import PokeLocking

/// The threads that make deferred replies (``Answer/deferred(_:)``), first come first
/// served: as many as the server's workers, so that however many connections wait for a
/// body, at most that many are being made at once (each may hold a document of megabytes
/// and its rendered and gzip'd copies), and they share the cores with the workers. At
/// most `queueLimit` wait: past that a request is answered 503 at once, so that clients
/// asking for what is not cached faster than it can be made (and resetting) cannot make
/// the queue, and the time its last one waits, grow without end.
final class RenderThreads: Sendable {
    /// The work waiting, in order; nil tells a thread to end.
    private let jobs = Locked<[(@Sendable () -> Void)?]>([])
    /// Counts the entries of `jobs`: a thread sleeps on it while there are none.
    private let waiting = DispatchSemaphore(value: 0)
    /// Entered by each thread while it runs: what `stop()` waits for.
    private let running = DispatchGroup()
    let count: Int
    let queueLimit: Int

    init(count: Int) {
        self.count = max(1, count)
        queueLimit = 64 * self.count
    }

    /// Starts the threads, each named `name`.
    func start(name: String) {
        for _ in 0 ..< count {
            running.enter()
            let thread = Thread { [self] in
                defer { running.leave() }
                while true {
                    waiting.wait()
                    guard let job = jobs.withLock({ $0.removeFirst() }) else { return }
                    job()
                }
            }
            thread.name = name
            thread.start()
        }
    }

    /// Runs `job` on one of the threads, after the work given before it; false, and
    /// `job` dropped, when `queueLimit` jobs wait already.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        guard jobs.withLock({ jobs in
            guard jobs.count < queueLimit else { return false }
            jobs.append(job)
            return true
        }) else { return false }
        waiting.signal()
        return true
    }

    /// Ends the threads once each has finished what it is doing, and returns then; work
    /// not started is dropped (its connections are closed: the workers have stopped).
    func stop() {
        jobs.withLock { jobs in
            // An entry for each count `waiting` holds already (each dropped job's), then one
            // for each thread: every wake finds an entry, every thread an end.
            jobs = Array(repeating: nil, count: jobs.count + count)
        }
        for _ in 0 ..< count { waiting.signal() }
        running.wait()
    }
}

/// Whether the connection a deferred reply is for is still waiting for it: cancelled when
/// the connection closes, so a job not started yet is not run, and one finished is not
/// handed back.
final class RenderTicket: Sendable {
    private let cancelled = Locked(false)

    var isCancelled: Bool { cancelled.withLock { $0 } }

    func cancel() { cancelled.withLock { $0 = true } }
}
