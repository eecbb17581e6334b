#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One client connection, owned by one worker thread: a bounded input buffer, the
/// scanner of the head being read, and the queue of replies being written.
///
/// Requests are answered in order as their heads complete. A connection's unread replies
/// are its own cost: once `queuedReplyBytes` wait for the socket, no further request is
/// answered (nor more input read) until the client reads; and each turn of its worker
/// answers at most `requestsPerTurn` of its requests, the rest waiting in its input
/// buffer (bounded by the head limit) for its next turn. A reply made on a render thread
/// (``Answer/deferred(_:)``) holds the requests after it until it comes back (``resume``).
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
    /// This connection among all its worker ever held (a descriptor is reused once closed):
    /// what a reply made on a render thread is delivered by.
    let serial: Int
    let address: ClientAddress
    private let limits: HTTPLimits
    /// The server's name, default headers, error body, kept fields and memory.
    private let configuration: HTTPServerConfiguration
    private let input: UnsafeMutableRawPointer
    private var inputCount = 0
    // The three below are changed in place on every request (a mutating scan, a head written
    // through `inout`, the queue appended to): unchecked, they skip the runtime's exclusivity
    // bookkeeping (about 140 instructions an access, 2,300 a request in all). Only this
    // connection's methods touch them, on its worker's thread, never re-entrantly.
    @exclusivity(unchecked) private var scanner: RequestHeadScanner
    /// The heads of the replies queued, written one after the other; emptied once all is
    /// written (a head is written here, not allocated: ``Reply/write(into:keepAlive:date:framing:)``).
    @exclusivity(unchecked) private var heads = HeadBytes()
    /// The bytes of `heads` counted in the configuration's memory (its capacity).
    private var countedHeadBytes = 0
    /// What is queued for the socket, in order: each part of `heads` or a body.
    @exclusivity(unchecked) private var output: [Piece] = []
    /// Bytes of `output` not written yet.
    private(set) var unwrittenBytes = 0
    /// Requests answered in the current turn.
    private var answeredThisTurn = 0
    private var closeAfterOutput = false
    private var peerClosed = false
    private var served = 0
    private(set) var phase = Phase.open
    /// The interest registered with the poller.
    private(set) var interest = PollInterest.read
    /// When the connection is dropped unless something happens: the head deadline, the
    /// idle keep-alive limit, the stalled-write limit, or the end of lingering.
    private(set) var deadline: Double
    /// When a write last made progress (or replies were queued): how long a stalled
    /// connection has pinned its replies.
    private(set) var lastProgress: Double
    /// Since when the connection has had nothing to do (no reply queued, no input).
    private(set) var idleSince: Double
    /// Since when the head now in the buffer has been arriving (infinity: none); for the
    /// first request, since the connection was made.
    private(set) var headSince: Double
    /// Complete requests wait in the buffer because the turn's share was used up: the
    /// worker gives the connection another turn (no readiness event will come for them).
    private(set) var wantsTurn = false
    /// The request whose reply a render thread is making: nothing after it is answered
    /// or read until the reply comes (``resume``); what was queued before it is written.
    private var awaiting: Awaited?

    private struct Awaited {
        let head: RequestHead
        /// When its head began to arrive, for the access log.
        let started: Double
        /// Cancelled when the connection closes first.
        let ticket: RenderTicket
    }

    /// Bytes queued: a range of a body, or of `heads` when `buffer` is nil.
    private struct Piece {
        var buffer: ByteBuffer?
        var start: Int
        let end: Int
    }

    init(descriptor: Int32, serial: Int, address: ClientAddress, configuration: HTTPServerConfiguration, now: Double) {
        self.configuration = configuration
        self.descriptor = descriptor
        self.serial = serial
        self.address = address
        limits = configuration.limits
        scanner = RequestHeadScanner(keeping: configuration.keptRequestHeaders)
        input = UnsafeMutableRawPointer.allocate(byteCount: limits.head, alignment: 16)
        deadline = now + limits.headSeconds
        lastProgress = now
        idleSince = now
        headSince = now
        countedHeadBytes = heads.capacity
        configuration.memory.add(countedHeadBytes)
    }

    deinit {
        input.deallocate()
        heads.deallocate()
        configuration.memory.add(-countedHeadBytes)
        if phase != .closed { close(descriptor) }
    }

    /// A keep-alive connection between requests: answered at least once, all written, nothing
    /// read since. What makes room at the connection cap first.
    var isIdleAfterAnswer: Bool { phase == .open && output.isEmpty && awaiting == nil && inputCount == 0 && served > 0 }
    /// Open, waiting for (the rest of) a head: a slow client, one sending a byte at a time
    /// to hold its slot, or one that connected and has sent nothing yet (its first head has
    /// been "arriving" since it connected). What makes room at the cap when no connection
    /// is idle, once its head is slow (``HTTPLimits/slowHeadSeconds``).
    var isReadingHead: Bool {
        phase == .open && output.isEmpty && awaiting == nil && !wantsTurn && (inputCount > 0 || served == 0)
    }
    /// Bytes the client sent wait in the kernel, not read yet (a request on its way to being
    /// answered: never closed to make room).
    var hasUnreadInput: Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) > 0
    }
    /// Why the deadline closes this connection, for the counts (nil: it was lingering, its
    /// replies written: an ordinary end).
    var deadlineReason: CloseReason? {
        guard phase == .open else { return nil }
        if isWriting || awaiting != nil { return .stalledWrite }
        return inputCount > 0 || served == 0 ? .headDeadline : .idleTimeout
    }
    /// The client's address as the access log writes it, formatted once.
    private lazy var addressText = address.description
    var isWriting: Bool { !output.isEmpty }

    /// Bytes of the replies waiting that only this connection holds (a body the cache keeps
    /// is shared, and closing the connection would free none of it).
    func ownedBytes() -> Int {
        var owned = 0
        for index in output.indices where output[index].buffer == nil || isKnownUniquelyReferenced(&output[index].buffer) {
            owned += output[index].end - output[index].start
        }
        return owned
    }

    /// Reads what the socket holds, answers every complete request, writes.
    func readable(_ context: WorkerContext, now: Double, stopping: Bool) {
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
        // Waiting for a reply, the connection has no interest registered: what is reported
        // is a hang-up or an error (``PollInterest/none``). The client is gone.
        if phase == .open && awaiting != nil { return finish() }
        guard phase == .open, output.isEmpty else { return }
        answeredThisTurn = 0
        wantsTurn = false
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
                if inputCount == 0 {
                    idleSince = .infinity
                    // A first head has been arriving since the connection was made.
                    if served > 0 { headSince = now }
                }
                inputCount += count
            }
        }
        // Once even with nothing buffered: a peer that closed is finished here.
        answer(context, now: now, stopping: stopping)
        writeOutput(context, now: now)
        answerAndWrite(context, now: now, stopping: stopping)
    }

    func writable(_ context: WorkerContext, now: Double, stopping: Bool) {
        guard phase == .open else { return }
        answeredThisTurn = 0
        wantsTurn = false
        writeOutput(context, now: now)
        // Replies drained: answer requests that were waiting in the buffer.
        answerAndWrite(context, now: now, stopping: stopping)
    }

    /// A turn given by the worker to a connection that had requests left in its buffer.
    func turn(_ context: WorkerContext, now: Double, stopping: Bool) {
        guard phase == .open, wantsTurn else { return }
        answeredThisTurn = 0
        wantsTurn = false
        answerAndWrite(context, now: now, stopping: stopping)
    }

    /// The reply of the request awaited, made on a render thread: queued in its place and
    /// written, then the requests after it are answered.
    func resume(_ reply: Reply, _ context: WorkerContext, now: Double, stopping: Bool) {
        guard phase == .open, let awaited = awaiting else { return }
        awaiting = nil
        answeredThisTurn = 0
        wantsTurn = false
        deliver(reply, to: awaited.head, started: awaited.started, context, now: now, stopping: stopping)
        writeOutput(context, now: now)
        answerAndWrite(context, now: now, stopping: stopping)
    }

    /// Answers and writes until the buffer holds no complete request, the socket is full or
    /// the turn's share is used. Requests left in the buffer once the replies are written
    /// out must be answered later without a readiness event (none comes for bytes already
    /// read): `wantsTurn` asks the worker for that.
    private func answerAndWrite(_ context: WorkerContext, now: Double, stopping: Bool) {
        while phase == .open && output.isEmpty && awaiting == nil && inputCount > 0 && !closeAfterOutput {
            if answeredThisTurn >= limits.requestsPerTurn {
                wantsTurn = true
                return
            }
            let before = served
            answer(context, now: now, stopping: stopping)
            writeOutput(context, now: now)
            if served == before { break }
        }
    }

    /// Answers the complete requests in the buffer, in order, while the turn's share and
    /// the bytes waiting for the socket allow.
    private func answer(_ context: WorkerContext, now: Double, stopping: Bool) {
        while awaiting == nil && !closeAfterOutput && answeredThisTurn < limits.requestsPerTurn
                && unwrittenBytes < limits.queuedReplyBytes {
            let scan = scanner.scan(UnsafeRawBufferPointer(start: input, count: inputCount), limits: limits)
            switch consume scan {
            case .incomplete:
                // A full buffer that is still no whole head (its last byte a CR, say) cannot
                // grow: refuse it rather than wait, read-ready, for the deadline.
                if inputCount >= limits.head {
                    reject(configuration.refusal(.headerFieldsTooLarge, "the head is longer than \(limits.head) bytes"), context)
                    return
                }
                if peerClosed {
                    // The client has finished sending; whatever is left is not a request.
                    closeAfterOutput = true
                    if output.isEmpty { finish() }
                }
                return
            case .rejected(let status, let reason):
                reject(configuration.refusal(status, reason), context)
                return
            case .complete(let head, let length):
                let started = headSince
                consume(length)
                served += 1
                answeredThisTurn += 1
                switch context.responder.answer(head) {
                case .ready(let reply):
                    deliver(reply, to: head, started: started, context, now: now, stopping: stopping)
                case .deferred(let make):
                    let ticket = RenderTicket()
                    guard context.render(make, descriptor, serial, ticket) else {
                        // The render threads are that far behind: asked again in a second.
                        let busy = configuration.refusal(.serviceUnavailable, "The server is busy; try again.",
                                                         headers: [("Retry-After", "1")])
                        deliver(busy, to: head, started: started, context, now: now, stopping: stopping)
                        continue
                    }
                    awaiting = Awaited(head: head, started: started, ticket: ticket)
                    // A reply not made within the stalled-write limit closes the connection.
                    deadline = now + limits.stalledWriteSeconds
                    return
                }
            }
        }
    }

    /// `reply` to `head` queued, counted and logged; the connection closes after it when it
    /// or the request says so.
    private func deliver(_ reply: Reply, to head: RequestHead, started: Double, _ context: WorkerContext,
                         now: Double, stopping: Bool) {
        let sendsBody = reply.sendsBody && !head.isHead  // a HEAD gets no body, a 404's or 405's neither
        // Stopping: requests the client sent before are still answered, the last one closes.
        let keepAlive = head.keepAlive && !head.hasBody && !reply.closes && !peerClosed
            && !(stopping && !hasCompleteRequest)
            && served < limits.requestsPerConnection
        queue(reply, sendsBody: sendsBody, keepAlive: keepAlive, context)
        context.answered(reply, request: head, address: addressText, bodyBytes: sendsBody ? reply.body.count : 0,
                         started: started)
        if !keepAlive { closeAfterOutput = true }
        deadline = now + limits.stalledWriteSeconds
    }

    /// A head refused by the parser: answered, logged without a request line, then closed.
    private func reject(_ reply: Reply, _ context: WorkerContext) {
        var reply = reply
        reply.route = "rejected"
        queue(reply, sendsBody: reply.sendsBody, keepAlive: false, context)
        context.answered(reply, request: nil, address: addressText, bodyBytes: reply.body.count, started: headSince)
        closeAfterOutput = true
    }

    /// `reply`'s head, and its body when `sendsBody`, queued for the socket.
    private func queue(_ reply: Reply, sendsBody: Bool, keepAlive: Bool, _ context: WorkerContext) {
        // A stall is measured from when replies start waiting.
        if output.isEmpty { lastProgress = monotonicSeconds() }
        let start = heads.count
        reply.write(into: &heads, keepAlive: keepAlive, date: context.date.now(), framing: context.framing)
        if heads.capacity != countedHeadBytes {
            configuration.memory.add(heads.capacity - countedHeadBytes)
            countedHeadBytes = heads.capacity
        }
        output.append(Piece(buffer: nil, start: start, end: heads.count))
        unwrittenBytes += heads.count - start
        if sendsBody && reply.body.count > 0 {
            output.append(Piece(buffer: reply.body, start: 0, end: reply.body.count))
            unwrittenBytes += reply.body.count
        }
        idleSince = .infinity
    }

    private func consume(_ length: Int) {
        let rest = inputCount - length
        if rest > 0 { (input).copyMemory(from: input + length, byteCount: rest) }
        inputCount = rest
        headSince = rest > 0 ? monotonicSeconds() : .infinity
        scanner.reset()
    }

    /// Writes queued replies with `writev` until the socket is full or they are all out.
    private func writeOutput(_ context: WorkerContext, now: Double) {
        guard phase == .open else { return }
        guard !output.isEmpty else {
            // Nothing to write: the deadline stays what it is (a trickled head keeps its own).
            if awaiting != nil {
                interest = .none
            } else if closeAfterOutput || peerClosed && inputCount == 0 {
                linger(now: now)
            }
            return
        }
        let vectors = context.vectors
        while !output.isEmpty {
            let count = min(output.count, WorkerContext.vectorCount)
            for index in 0 ..< count {
                let piece = output[index]
                let base = piece.buffer?.base ?? heads.base
                vectors[index] = iovec(iov_base: base + piece.start, iov_len: piece.end - piece.start)
            }
            let written = writev(descriptor, vectors, Int32(count))
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                return finish()
            }
            deadline = now + limits.stalledWriteSeconds
            if written > 0 { lastProgress = now }
            context.sent(written)
            unwrittenBytes -= written
            var remaining = written
            while remaining > 0, let first = output.first {
                let left = first.end - first.start
                if remaining >= left {
                    remaining -= left
                    output.removeFirst()
                } else {
                    output[0].start += remaining
                    remaining = 0
                }
            }
        }
        if output.isEmpty {
            unwrittenBytes = 0
            emptyHeads()
            // The replies before the one awaited are out: nothing to do until it comes.
            if awaiting != nil { interest = .none; return }
            if closeAfterOutput || peerClosed && inputCount == 0 { return linger(now: now) }
            if inputCount == 0 { idleSince = now }
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
        emptyHeads()
        unwrittenBytes = 0
    }

    /// Forgets the heads written (all sent, or dropped); memory grown by many pipelined
    /// answers is given back rather than kept for the connection's life.
    private func emptyHeads() {
        heads.removeAll()
        guard heads.capacity > 16 << 10 else { return }
        heads.deallocate()
        heads = HeadBytes()
        configuration.memory.add(heads.capacity - countedHeadBytes)
        countedHeadBytes = heads.capacity
    }

    /// On SIGTERM: an idle connection or one in the middle of a head closes now; one
    /// writing replies, or with requests waiting in its buffer, closes once they are
    /// answered and written.
    func stop(now: Double) {
        // The reply awaited decides, when it comes (its keep-alive asks whether stopping).
        guard phase == .open, awaiting == nil else { return }
        let pending = hasCompleteRequest
        if output.isEmpty && !pending { finish() } else if !pending { closeAfterOutput = true }
    }

    /// Whether the buffer holds another whole request (only asked when stopping).
    private var hasCompleteRequest: Bool {
        var probe = RequestHeadScanner(keeping: [])
        if case .complete = probe.scan(UnsafeRawBufferPointer(start: input, count: inputCount), limits: limits) { return true }
        return false
    }

    /// Closes the socket now.
    func finish() {
        guard phase != .closed else { return }
        phase = .closed
        awaiting?.ticket.cancel()
        awaiting = nil
        output.removeAll()
        unwrittenBytes = 0
        close(descriptor)
    }
}
