import Foundation

/// `--access-log FILE` (or `-`, standard output): lines in nginx's combined format, written
/// by a thread of their own so that a slow disk never stalls a worker.
///
/// Workers format their lines into their own buffers (``AccessLogBuffer``) and hand them
/// over in chunks; this queues at most `queueBound` bytes of them for the writer. Every
/// line handed over is either written whole or counted in ``droppedLines``, never both:
/// chunks past the bound (the file cannot keep up), lines the file refuses (a full disk, a
/// reader that left) and lines while the file could not be reopened. ``reopen()`` (on
/// SIGHUP) opens the path again, so after `mv` of the file the next lines go to a new one,
/// as logrotate expects; a reopen that fails closes the old file (it may be deleted in a
/// few nights) and drops lines until the next reopen succeeds.
///
/// The writer never waits on a reader (standard output or a FIFO nobody reads: an
/// ``OutputDescriptor``): lines wait in the queue meanwhile, and when the server stops,
/// what is still not written `stopSeconds` later is dropped and counted, so a stalled
/// reader never holds the exit nor keeps a line uncounted.
package final class AccessLog: @unchecked Sendable {
    // @unchecked Sendable: the queue, the flags and the counters are touched only with
    // `condition` locked; `output`, `cut` and `reported` only by the writer thread (and
    // by init/finish, before it starts and after it ended).
    private let condition = NSCondition()
    /// nil: standard output.
    let path: String?
    /// nil: no file (a reopen failed, or a FIFO waits for its reader).
    private var output: OutputDescriptor?
    /// The rest of a line the file took only part of (a full disk), written before anything
    /// else so that the next line never starts in the middle of it.
    private var cut: [UInt8] = []
    /// When each kind of failure was last said.
    private var reported: [String: Double] = [:]
    /// `dropped` when the file failed, for the line that says it is written again.
    private var droppedAtFailure: Int?
    private var chunks: [(bytes: [UInt8], lines: Int)] = []
    private var queuedBytes = 0
    /// Lines the writer took from the queue and has neither written nor counted yet.
    private var inHand = 0
    /// When a stopping writer gives up on what the file does not take.
    private var stopUntil = Double.infinity
    private var wantsReopen = false
    private var stopping = false
    private var finished = false
    private var dropped = 0
    /// Bytes of lines waiting for the writer; past this a chunk is dropped.
    let queueBound: Int
    private var thread: Thread?
    /// A failure is said again at most this often (a new kind of failure at once).
    static let reportSeconds = 60.0
    /// How long, once the server stops, the lines still queued may wait for the file.
    static let stopSeconds = 2.0
    /// Says a failure, or the file written again (a line without its newline).
    private let report: @Sendable (String) -> Void

    /// Opens `path` for appending (created 0644 when missing), or standard output for `-`.
    /// A FIFO with no reader yet is opened by the writer thread, which waits for one (the
    /// lines meanwhile queue, then are dropped and counted): the server starts regardless.
    /// `report` says what goes wrong with the file, and when it is written again.
    /// - Throws: `HTTPServerError.cannotOpenLog` when the file cannot be opened.
    package init(path: String, queueBound: Int = 1 << 20, report: @escaping @Sendable (String) -> Void) throws(HTTPServerError) {
        self.queueBound = queueBound
        self.report = report
        if path == "-" {
            self.path = nil
            output = OutputDescriptor.standard(STDOUT_FILENO)
        } else {
            self.path = path
            output = Self.open(path, waiting: false)
            guard output != nil || errno == ENXIO else {
                throw HTTPServerError.cannotOpenLog(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Opens `path` for appending, non-blocking (a FIFO's reader that stalls is waited for
    /// by the writer, within bounds); nil (and `errno`) when it cannot be. Without `waiting`,
    /// a FIFO that has no reader fails at once (ENXIO) instead of blocking.
    private static func open(_ path: String, waiting: Bool) -> OutputDescriptor? {
        let flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC
        var opened = Foundation.open(path, flags | O_NONBLOCK, 0o644)
        if opened < 0 && waiting && errno == ENXIO { opened = Foundation.open(path, flags, 0o644) }
        return opened < 0 ? nil : OutputDescriptor(opened: opened)
    }

    /// The file's path, or `(standard output)`, as reports name it.
    var name: String { path ?? "(standard output)" }

    /// Lines dropped so far: the writer was too far behind, or the file could not be
    /// written or reopened.
    var droppedLines: Int { condition.lock(); defer { condition.unlock() }; return dropped }

    /// Starts the writer thread, named `threadName`.
    func start(threadName: String) {
        let thread = Thread { [self] in
            if output == nil, let path { reopenFile(path) }
            write()
        }
        thread.name = threadName
        self.thread = thread
        thread.start()
    }

    /// Queues a chunk of whole lines (any thread); drops and counts it when the queue is full.
    func append(_ bytes: [UInt8], lines: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard queuedBytes + bytes.count <= queueBound, !finished else {
            dropped += lines
            return
        }
        chunks.append((bytes, lines))
        queuedBytes += bytes.count
        condition.signal()
    }

    /// Opens the path again at the writer's next turn (SIGHUP; any thread).
    func reopen() {
        condition.lock()
        wantsReopen = true
        condition.signal()
        condition.unlock()
    }

    /// Writes what is queued, then stops the writer and closes the file. Waits about
    /// `stopSeconds`: what a reader that stalled has not taken by then is dropped and
    /// counted. A writer held still (inside the open of a FIFO nobody opens, a hung disk)
    /// is left, and every line it holds or that waits is counted dropped.
    func finish() {
        condition.lock()
        stopping = true
        stopUntil = monotonicSeconds() + Self.stopSeconds
        condition.signal()
        // The writer looks at the time at least every tenth of a second while it waits.
        let until = Date().addingTimeInterval(Self.stopSeconds + 0.5)
        while thread != nil && !finished {
            guard condition.wait(until: until) else { break }
        }
        let ended = finished || thread == nil
        finished = true
        if ended && !cut.isEmpty { dropped += 1 }
        if !ended { dropped += inHand + chunks.reduce(0) { $0 + $1.lines } }
        chunks.removeAll()
        condition.unlock()
        if ended { output?.close() }
    }

    /// Whether a stopping writer gives up on what the file has not taken.
    private var givingUp: Bool {
        condition.lock()
        defer { condition.unlock() }
        return monotonicSeconds() >= stopUntil
    }

    private func write() {
        while true {
            condition.lock()
            while chunks.isEmpty && !wantsReopen && !stopping { condition.wait() }
            let taken = chunks, reopening = wantsReopen, stop = stopping
            chunks.removeAll()
            queuedBytes = 0
            inHand = taken.reduce(0) { $0 + $1.lines }
            wantsReopen = false
            condition.unlock()
            var lost = 0
            // Whether the file took the batch's last chunk whole: after a failure (a disk
            // that was full has room again) that is the file written again, said at once.
            var tookLast = false
            if reopening, let path { lost += reopenFile(path) }
            for chunk in taken {
                let missing = write(chunk.bytes, lines: chunk.lines)
                lost += missing
                tookLast = missing == 0 && cut.isEmpty && output != nil
            }
            if tookLast, droppedAtFailure != nil { writtenAgain(lostNow: lost) }
            condition.lock()
            // finish() gave up on this writer and counted what it held.
            guard !finished else { condition.unlock(); return }
            dropped += lost
            inHand = 0
            if stop && chunks.isEmpty {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()
        }
    }

    /// Opens `path` again (waiting for a FIFO's reader): on success the old file is closed
    /// and lines go to the new one; on failure the old file is closed too (lines written
    /// there would be lost with it) and lines are dropped until a reopen succeeds. Returns
    /// the lines this lost: a cut line left unfinished in the old file.
    @discardableResult
    private func reopenFile(_ path: String) -> Int {
        let fresh = Self.open(path, waiting: true)
        let reason = errno
        let lost = cut.isEmpty ? 0 : 1
        cut.removeAll()
        output?.close()
        output = fresh
        if fresh == nil {
            failed("reopen \(reason)", "cannot reopen the access log \(path): \(String(cString: strerror(reason))); "
                   + "lines are dropped and counted until a reopen (SIGHUP) succeeds", lost: lost)
        } else if droppedAtFailure != nil {
            writtenAgain(lostNow: lost)
        }
        return lost
    }

    /// The file takes lines again after a failure (a reopen that worked, or a disk with
    /// room again): says how many were dropped meanwhile, `lostNow` (not counted in
    /// `dropped` yet) included, and forgets the failures said, so the next one is said at once.
    private func writtenAgain(lostNow: Int) {
        guard let before = droppedAtFailure else { return }
        condition.lock()
        let since = dropped + lostNow - before
        condition.unlock()
        droppedAtFailure = nil
        reported.removeAll()
        report("the access log \(name) is written again; \(since) lines were dropped meanwhile")
    }

    /// Writes one chunk of whole lines; returns how many of them are not in the file.
    private func write(_ bytes: [UInt8], lines: Int) -> Int {
        guard let output else { return lines }
        // On standard output, serve's own lines queued before (its start line) go first.
        if path == nil {
            while !StandardStreams.outputQueue.waitWritten(within: 0.1) {
                if givingUp { return lines }
            }
        }
        if !cut.isEmpty {
            cut.removeFirst(writeSome(cut, to: output))
            guard cut.isEmpty else { return lines }
        }
        let written = writeSome(bytes, to: output)
        guard written < bytes.count else { return 0 }
        // Cut: the lines whose newline went out are in the file; the rest of the line cut
        // waits to be written first next time; the lines after it are lost.
        let whole = bytes[..<written].reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        if written > 0 && bytes[written - 1] != 0x0A, let end = bytes[written...].firstIndex(of: 0x0A) {
            cut = Array(bytes[written ... end])
            return lines - whole - 1
        }
        return lines - whole
    }

    /// Writes as much of `bytes` as the file takes; what it refuses is said through `report`.
    /// A file with no room yet (a reader behind) is waited for, until the stopping server
    /// gives up on it.
    private func writeSome(_ bytes: [UInt8], to output: OutputDescriptor) -> Int {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { output.write($0.baseAddress! + offset, count: $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if givingUp { return offset }
                _ = output.waitWritable(within: 0.1)
                continue
            }
            guard count > 0 else {
                let reason = count < 0 ? errno : ENOSPC
                failed("write \(reason)", "cannot write the access log \(name): "
                       + "\(String(cString: strerror(reason))); lines are dropped and counted", lost: 0)
                return offset
            }
            offset += count
        }
        return offset
    }

    /// Says a failure through `report`: each kind at once the first time, then at most once a
    /// `reportSeconds`.
    private func failed(_ kind: String, _ line: String, lost: Int) {
        if droppedAtFailure == nil {
            condition.lock()
            droppedAtFailure = dropped + lost
            condition.unlock()
        }
        let now = monotonicSeconds()
        if let last = reported[kind], now - last < Self.reportSeconds { return }
        reported[kind] = now
        report(line)
    }
}

/// One worker's lines not yet handed to the ``AccessLog``, formatted on the worker's thread.
struct AccessLogBuffer {
    let log: AccessLog
    private var bytes: [UInt8] = []
    private var lines = 0
    private var handedAt = 0.0
    /// `$time_local`: `27/Nov/2026:09:04:26 +0000`.
    private var timeLocal = SecondStamp(format: "%d/%b/%Y:%H:%M:%S %z", utc: false)

    init(log: AccessLog) {
        self.log = log
        bytes.reserveCapacity(Self.chunkBytes + 4096)
    }

    /// Handed over at this size, or `handOverSeconds` after the last hand-over.
    static let chunkBytes = 32 << 10
    static let handOverSeconds = 0.1

    /// Appends one line: `$remote_addr - - [$time_local] "$request" $status $body_bytes_sent
    /// "$http_referer" "$http_user_agent" $request_time`.
    mutating func append(address: String, request: RequestHead?, status: Int, bodyBytes: Int, seconds: Double) {
        bytes.append(contentsOf: address.utf8)
        bytes.append(contentsOf: " - - [".utf8)
        bytes.append(contentsOf: timeLocal.now().bytes)
        bytes.append(contentsOf: "] \"".utf8)
        if let request {
            escape(request.method)
            bytes.append(0x20)
            escape(request.path)
            if let query = request.query {
                bytes.append(UInt8(ascii: "?"))
                escape(query)
            }
            bytes.append(contentsOf: request.minorVersion == 0 ? " HTTP/1.0".utf8 : " HTTP/1.1".utf8)
        } else {
            bytes.append(UInt8(ascii: "-"))
        }
        bytes.append(contentsOf: "\" ".utf8)
        appendNumber(status)
        bytes.append(0x20)
        appendNumber(bodyBytes)
        bytes.append(contentsOf: " \"".utf8)
        escape(request?.referer ?? Self.dash)
        bytes.append(contentsOf: "\" \"".utf8)
        escape(request?.userAgent ?? Self.dash)
        bytes.append(contentsOf: "\" ".utf8)
        // Seconds with milliseconds, as nginx's $request_time.
        let millis = max(0, Int((seconds * 1000).rounded()))
        appendNumber(millis / 1000)
        bytes.append(UInt8(ascii: "."))
        let fraction = millis % 1000
        if fraction < 100 { bytes.append(UInt8(ascii: "0")) }
        if fraction < 10 { bytes.append(UInt8(ascii: "0")) }
        appendNumber(fraction)
        bytes.append(0x0A)
        lines += 1
    }

    /// Hands the lines over when there are enough of them, or they waited long enough
    /// (`force`: whatever there is).
    mutating func handOver(now: Double, force: Bool = false) {
        guard lines > 0, force || bytes.count >= Self.chunkBytes || now - handedAt >= Self.handOverSeconds else { return }
        log.append(bytes, lines: lines)
        bytes.removeAll(keepingCapacity: true)
        lines = 0
        handedAt = now
    }

    private static let dash = Array("-".utf8)

    private mutating func escape(_ text: String) { escape(text.utf8) }

    /// nginx's escaping of a logged string: `"`, `\`, control bytes and bytes past ASCII as `\xHH`.
    private mutating func escape(_ text: some Collection<UInt8>) {
        // Nearly every logged string needs no escaping: copy those whole (one memcpy) and
        // go byte by byte only for the rest.
        let copied: Bool? = text.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: Self.needsEscape) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        guard copied != true else { return }
        for byte in text {
            if Self.needsEscape(byte) {
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "x"), Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 15)]])
            } else {
                bytes.append(byte)
            }
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The decimal digits of `value` (never negative here), without making a String of it.
    private mutating func appendNumber(_ value: Int) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
        }
    }
}
