import Dispatch
import Foundation
import PokeLocking

/// The threads that make deferred replies (``Answer/deferred(_:)``), first come first
/// served: as many as the server's workers, so that however many connections wait for a
/// body, at most that many are being made at once (each may hold a document of megabytes
/// and its rendered and gzip'd copies), and they share the cores with the workers.
final class RenderThreads: Sendable {
    /// The work waiting, in order; nil tells a thread to end.
    private let jobs = Locked<[(@Sendable () -> Void)?]>([])
    /// Counts the entries of `jobs`: a thread sleeps on it while there are none.
    private let waiting = DispatchSemaphore(value: 0)
    let count: Int

    init(count: Int) { self.count = max(1, count) }

    /// Starts the threads, each named `name`.
    func start(name: String) {
        for _ in 0 ..< count {
            let thread = Thread { [self] in
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

    /// Runs `job` on one of the threads, after the work given before it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        waiting.signal()
    }

    /// Ends the threads once each has finished what it is doing; work not started is
    /// dropped (its connections are closed: the workers have stopped).
    func stop() {
        jobs.withLock { jobs in
            // An entry for each count `waiting` holds already (each dropped job's), then one
            // for each thread: every wake finds an entry, every thread an end.
            jobs = Array(repeating: nil, count: jobs.count + count)
        }
        for _ in 0 ..< count { waiting.signal() }
    }
}
