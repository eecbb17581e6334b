/// Why the server closed a connection itself (the client did not close it).
package enum CloseReason: String, CaseIterable, Sendable {
    /// At the connection cap: an idle keep-alive connection that had been answered.
    case capIdle = "cap_idle"
    /// At the connection cap: the head that had been arriving longest.
    case capSlowHead = "cap_slow_head"
    /// A head not complete within the head deadline (also a client that sent nothing).
    case headDeadline = "head_deadline"
    /// A keep-alive connection idle past the idle limit.
    case idleTimeout = "idle_timeout"
    /// Replies that made no progress past the stalled-write limit.
    case stalledWrite = "stalled_write"
    /// Memory short: replies stalled and holding bodies of their own.
    case shed
}

/// What the server's workers counted: answers by route and status, bytes written,
/// connections closed by the server and why. A worker counts into its own copy on its
/// thread alone and hands it over once a loop (``WorkerContext/handOver()``), so answering
/// takes no lock.
package struct TrafficCounts: Sendable {
    package struct Answer: Hashable, Sendable {
        package var route: String
        package var status: Int
    }

    package var answers: [Answer: Int] = [:]
    package var sentBytes = 0
    package var closed: [CloseReason: Int] = [:]

    var isEmpty: Bool { answers.isEmpty && sentBytes == 0 && closed.isEmpty }

    mutating func add(_ other: TrafficCounts) {
        for (answer, count) in other.answers { answers[answer, default: 0] += count }
        sentBytes += other.sentBytes
        for (reason, count) in other.closed { closed[reason, default: 0] += count }
    }

    mutating func reset() {
        answers.removeAll(keepingCapacity: true)
        sentBytes = 0
        closed.removeAll(keepingCapacity: true)
    }
}

/// The whole server's figures at one moment, for the metrics.
package struct TrafficReport: Sendable {
    package var counts = TrafficCounts()
    package var openConnections = 0
    package var acceptedConnections = 0
    /// Answered 503 at accept: the address held its share.
    package var refusedPerAddress = 0
    package var accessLogDropped = 0
}
