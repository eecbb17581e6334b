#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers one parsed request. One per worker thread, used by that thread only, so it
/// may keep per-thread state (a database connection).
protocol Responder: AnyObject {
    func respond(to request: RequestHead) -> Reply
}

/// One client connection, owned by one worker thread: a bounded input buffer, the
/// scanner of the head being read, and the queue of replies being written.
///
/// Requests are answered in order as their heads complete; while replies wait for the
/// socket, no more input is read (so a client that never reads holds at most
/// `pipelinedResponses` replies, and no more input than the head limit).
final class Connection {
    enum Phase {
        /// Waiting for (or reading) a request head, or writing replies.
        case open
        /// Replies written and the write side shut: reading what the client still sends
        /// for a moment, so that closing does not reset the reply away before it is read.
        case lingering
        case closed
    }

    let descriptor: Int32
    private let limits: HTTPLimits
    private let input: UnsafeMutableRawPointer
    private var inputCount = 0
    private var scanner = RequestHeadScanner()
    private var output: [(buffer: ByteBuffer, offset: Int)] = []
    private var repliesQueued = 0
    private var closeAfterOutput = false
    private var peerClosed = false
    private var served = 0
    private(set) var phase = Phase.open
    /// The interest registered with the poller.
    private(set) var interest = PollInterest.read
    /// When the connection is dropped unless something happens: the head deadline, the
    /// idle keep-alive limit, the stalled-write limit, or the end of lingering.
    private(set) var deadline: Double

    init(descriptor: Int32, limits: HTTPLimits, now: Double) {
        self.descriptor = descriptor
        self.limits = limits
        input = UnsafeMutableRawPointer.allocate(byteCount: limits.head, alignment: 16)
        deadline = now + limits.headSeconds
    }

    deinit {
        input.deallocate()
        if phase != .closed { close(descriptor) }
    }

    var isIdle: Bool { output.isEmpty && inputCount == 0 }
    var isWriting: Bool { !output.isEmpty }

    /// Reads what the socket holds, answers every complete request, writes.
    func readable(_ responder: Responder, date: inout HTTPDate, now: Double, stopping: Bool) {
        if phase == .lingering {
            var scratch = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &scratch, scratch.count)
                if count > 0 { continue }
                if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
                if count < 0 && errno == EINTR { continue }
                return finish()
            }
        }
        guard phase == .open, output.isEmpty else { return }
        let space = limits.head - inputCount
        if space > 0 && !peerClosed {
            let count = read(descriptor, input + inputCount, space)
            if count == 0 {
                peerClosed = true
            } else if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                return finish()
            } else {
                if inputCount == 0 && served > 0 { deadline = now + limits.headSeconds }
                inputCount += count
            }
        }
        // Once even with nothing buffered: a peer that closed is finished here.
        answer(responder, date: &date, now: now, stopping: stopping)
        writeOutput(now: now)
        answerAndWrite(responder, date: &date, now: now, stopping: stopping)
    }

    func writable(_ responder: Responder, date: inout HTTPDate, now: Double, stopping: Bool) {
        guard phase == .open else { return }
        writeOutput(now: now)
        // Replies drained: answer requests that were waiting in the buffer.
        answerAndWrite(responder, date: &date, now: now, stopping: stopping)
    }

    /// Answers and writes until the buffer holds no complete request or the socket is full.
    /// Requests beyond the queue's bound wait in the buffer; once the queue is written out
    /// they must be answered now: no readiness event will come for bytes already read.
    private func answerAndWrite(_ responder: Responder, date: inout HTTPDate, now: Double, stopping: Bool) {
        while phase == .open && output.isEmpty && inputCount > 0 && !closeAfterOutput {
            let before = served
            answer(responder, date: &date, now: now, stopping: stopping)
            writeOutput(now: now)
            if served == before { break }
        }
    }

    /// Answers the complete requests in the buffer, in order, up to the queue's bound.
    private func answer(_ responder: Responder, date: inout HTTPDate, now: Double, stopping: Bool) {
        while !closeAfterOutput && repliesQueued < limits.pipelinedResponses {
            let scan = scanner.scan(UnsafeRawBufferPointer(start: input, count: inputCount), limits: limits)
            switch scan {
            case .incomplete:
                // A full buffer that is still no whole head (its last byte a CR, say) cannot
                // grow: refuse it rather than wait, read-ready, for the deadline.
                if inputCount >= limits.head {
                    queue(Reply.detail(431, "the head is longer than \(limits.head) bytes", closes: true), keepAlive: false, date: &date)
                    closeAfterOutput = true
                    return
                }
                if peerClosed {
                    // The client has finished sending; whatever is left is not a request.
                    closeAfterOutput = true
                    if output.isEmpty { finish() }
                }
                return
            case .rejected(let status, let reason):
                queue(Reply.detail(status, reason, closes: true), keepAlive: false, date: &date)
                closeAfterOutput = true
                return
            case .complete(let head, let length):
                consume(length)
                served += 1
                var reply = responder.respond(to: head)
                if head.isHead { reply.sendsBody = false }  // also a 404's or 405's body
                let keepAlive = head.keepAlive && !head.hasBody && !reply.closes && !stopping && !peerClosed
                    && served < limits.requestsPerConnection
                queue(reply, keepAlive: keepAlive, date: &date)
                if !keepAlive { closeAfterOutput = true }
                deadline = now + limits.stalledWriteSeconds
            }
        }
    }

    private func queue(_ reply: Reply, keepAlive: Bool, date: inout HTTPDate) {
        output.append((reply.head(keepAlive: keepAlive, date: date.now()), 0))
        if reply.sendsBody && reply.body.count > 0 { output.append((reply.body, 0)) }
        repliesQueued += 1
    }

    private func consume(_ length: Int) {
        let rest = inputCount - length
        if rest > 0 { (input).copyMemory(from: input + length, byteCount: rest) }
        inputCount = rest
        scanner.reset()
    }

    /// Writes queued replies with `writev` until the socket is full or they are all out.
    private func writeOutput(now: Double) {
        guard phase == .open else { return }
        guard !output.isEmpty else {
            // Nothing to write: the deadline stays what it is (a trickled head keeps its own).
            if closeAfterOutput || peerClosed && inputCount == 0 { linger(now: now) }
            return
        }
        var vectors = [iovec](repeating: iovec(), count: 16)
        while !output.isEmpty {
            let count = min(output.count, vectors.count)
            for index in 0 ..< count {
                let (buffer, offset) = output[index]
                vectors[index] = iovec(iov_base: buffer.base + offset, iov_len: buffer.count - offset)
            }
            let written = writev(descriptor, vectors, Int32(count))
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                return finish()
            }
            deadline = now + limits.stalledWriteSeconds
            var remaining = written
            while remaining > 0, let first = output.first {
                let left = first.buffer.count - first.offset
                if remaining >= left {
                    remaining -= left
                    output.removeFirst()
                } else {
                    output[0].offset += remaining
                    remaining = 0
                }
            }
        }
        if output.isEmpty {
            repliesQueued = 0
            if closeAfterOutput || peerClosed && inputCount == 0 { return linger(now: now) }
            deadline = inputCount > 0 ? now + limits.headSeconds : now + limits.idleSeconds
            interest = .read
        } else {
            interest = .write
        }
    }

    /// Shuts the write side and reads out what the client still sends, for at most two
    /// seconds, before closing (a close with unread input would reset the connection and
    /// could destroy the reply, a 431 say, before the client reads it).
    private func linger(now: Double) {
        shutdown(descriptor, Int32(SHUT_WR))
        phase = .lingering
        interest = .read
        deadline = now + 2
        output.removeAll()
    }

    /// On SIGTERM: an idle connection or one in the middle of a head closes now; one
    /// writing replies closes once they are written.
    func stop(now: Double) {
        guard phase == .open else { return }
        if output.isEmpty { finish() } else { closeAfterOutput = true }
    }

    /// Closes the socket now.
    func finish() {
        guard phase != .closed else { return }
        phase = .closed
        output.removeAll()
        close(descriptor)
    }
}
