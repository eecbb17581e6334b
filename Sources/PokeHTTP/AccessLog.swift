import Foundation

/// `--access-log FILE` (or `-`, standard output): lines in nginx's combined format, written
/// by a thread of their own so that a slow disk never stalls a worker.
///
/// Workers format their lines into their own buffers (``AccessLogBuffer``) and hand them
/// over in chunks; this queues at most `queueBound` bytes of them for the writer. When the
/// file cannot keep up, chunks past the bound are dropped and their lines counted
/// (``droppedLines``): the answers go on, the log loses lines. ``reopen()`` (on SIGHUP)
/// opens the path again, so after `mv` of the file the next lines go to a new one, as
/// logrotate expects.
package final class AccessLog: @unchecked Sendable {
    // @unchecked Sendable: the queue, the flags and the counters are touched only with
    // `condition` locked; `descriptor` only by the writer thread (and by init/finish, before
    // it starts and after it ended).
    private let condition = NSCondition()
    /// nil: standard output.
    let path: String?
    private var descriptor: Int32
    private var chunks: [(bytes: [UInt8], lines: Int)] = []
    private var queuedBytes = 0
    private var wantsReopen = false
    private var stopping = false
    private var finished = false
    private var dropped = 0
    private var reportedError = false
    /// Bytes of lines waiting for the writer; past this a chunk is dropped.
    let queueBound: Int
    private var thread: Thread?

    /// Opens `path` for appending (created 0644 when missing), or standard output for `-`.
    /// - Throws: `HTTPServerError.cannotOpenLog` when the file cannot be opened.
    package init(path: String, queueBound: Int = 1 << 20) throws(HTTPServerError) {
        self.queueBound = queueBound
        if path == "-" {
            self.path = nil
            descriptor = STDOUT_FILENO
        } else {
            self.path = path
            descriptor = Self.open(path)
            guard descriptor >= 0 else { throw HTTPServerError.cannotOpenLog(path: path, reason: String(cString: strerror(errno))) }
        }
    }

    private static func open(_ path: String) -> Int32 {
        Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    }

    /// Lines dropped so far because the writer was too far behind (or the file could not
    /// be written).
    var droppedLines: Int { condition.lock(); defer { condition.unlock() }; return dropped }

    /// Starts the writer thread.
    func start() {
        let thread = Thread { [self] in write() }
        thread.name = "pokesync-serve-log"
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

    /// Writes what is queued, then stops the writer and closes the file. Waits at most two
    /// seconds: a file that blocks (a hung disk, a pipe nobody reads) does not hold the exit.
    func finish() {
        condition.lock()
        stopping = true
        condition.signal()
        let until = Date().addingTimeInterval(2)
        while thread != nil && !finished {
            guard condition.wait(until: until) else { break }
        }
        let ended = finished || thread == nil
        finished = true
        condition.unlock()
        if ended && path != nil { close(descriptor) }
    }

    private func write() {
        while true {
            condition.lock()
            while chunks.isEmpty && !wantsReopen && !stopping { condition.wait() }
            let taken = chunks, reopening = wantsReopen, stop = stopping
            chunks.removeAll()
            queuedBytes = 0
            wantsReopen = false
            condition.unlock()
            if reopening, let path {
                let fresh = Self.open(path)
                if fresh >= 0 {
                    close(descriptor)
                    descriptor = fresh
                } else {
                    report("cannot reopen the access log \(path): \(String(cString: strerror(errno)))")
                }
            }
            var lost = 0
            for chunk in taken where !writeAll(chunk.bytes) { lost += chunk.lines }
            condition.lock()
            dropped += lost
            if stop && chunks.isEmpty {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()
        }
    }

    /// Writes `bytes` whole; false (said once on stderr) when the file refuses them.
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                report("cannot write the access log \(path ?? "(standard output)"): \(String(cString: strerror(errno)))")
                return false
            }
            offset += count
        }
        return true
    }

    private func report(_ line: String) {
        guard !reportedError else { return }
        reportedError = true
        FileHandle.standardError.write(Data("pokesync: serve: \(line); lines are dropped and counted\n".utf8))
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
        escape(request?.referer ?? "-")
        bytes.append(contentsOf: "\" \"".utf8)
        escape(request?.userAgent ?? "-")
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

    /// nginx's escaping of a logged string: `"`, `\`, control bytes and bytes past ASCII as `\xHH`.
    private mutating func escape(_ text: String) {
        // Nearly every logged string needs no escaping: copy those whole (one memcpy) and
        // go byte by byte only for the rest.
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: Self.needsEscape) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        guard copied != true else { return }
        for byte in text.utf8 {
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
