#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a responder answers to one request. ``write(into:keepAlive:date:framing:)`` is the one
/// place a head is written, for every answer the server gives (refusals at accept and the
/// parser's rejections included): the reply's headers (or its ``PreparedHead``), the server's
/// default headers (``HTTPServerConfiguration/defaultHeaders``), then the framing ones
/// (`Content-Length`, `Date`, `Server`, `Connection`); the connection writes head and body
/// with one `writev`.
package struct Reply: Sendable {
    var status: HTTPStatus
    /// Headers in the order written; names as they should appear. Empty when `prepared`.
    var headers: [(String, String)]
    /// The status line and headers made ahead, default headers included: written as they
    /// are instead of `status` and `headers` (a cached body's answer).
    var prepared: PreparedHead?
    /// The body a GET gets (a HEAD or a 304 sends its length, or nothing, but not the bytes).
    var body: ByteBuffer
    /// False for HEAD and 304: the head only.
    var sendsBody = true
    /// The connection closes after this reply.
    var closes = false
    /// What kind of request this answers, as the metrics count it (`document`, `list`...):
    /// a short name the responder picks; the HTTP layer only carries it. A literal: a reply
    /// is copied a few times on its way, and a `String` would be counted at each copy.
    package var route: StaticString = "other"

    package init(status: HTTPStatus, headers: [(String, String)] = [], body: ByteBuffer = .empty, sendsBody: Bool = true,
         closes: Bool = false, route: StaticString = "other") {
        self.route = route
        self.status = status
        self.headers = headers
        self.body = body
        self.sendsBody = sendsBody
        self.closes = closes
    }

    /// A reply whose status line and headers were made ahead (`prepared`, which must begin
    /// with `status`'s line and hold the server's default headers): only the framing
    /// headers are written for it.
    package init(status: HTTPStatus, prepared: PreparedHead, body: ByteBuffer, sendsBody: Bool = true,
                 route: StaticString = "other") {
        self.route = route
        self.status = status
        self.headers = []
        self.prepared = prepared
        self.body = body
        self.sendsBody = sendsBody
    }

    /// An error's reply: `body`'s `Content-Type`, then `headers`, and its bytes counted in `memory`.
    package static func error(_ status: HTTPStatus, _ body: ErrorBody, headers: [(String, String)] = [], closes: Bool = false,
                              memory: MemoryBudget) -> Reply {
        Reply(status: status, headers: [("Content-Type", body.contentType)] + headers,
              body: ByteBuffer(body.bytes, countedIn: memory), closes: closes)
    }

    /// The value of the header `name` (as the reply names it), or nil.
    func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }

    /// Sets the header `name` to `value`, where it is, or at the end.
    package mutating func setHeader(_ name: String, _ value: String) {
        if let index = headers.firstIndex(where: { $0.0 == name }) { headers[index].1 = value } else { headers.append((name, value)) }
    }

    /// The head's bytes, counted in `memory`: status line, the reply's headers, `defaults`
    /// (those the reply does not set itself), then the framing ones, `server` the `Server` header's.
    /// A copy of what ``write(into:keepAlive:date:framing:)`` writes (tests, a refusal at accept).
    func head(keepAlive: Bool, date: String, defaults: [(String, String)], server: String, memory: MemoryBudget) -> ByteBuffer {
        var bytes = HeadBytes()
        defer { bytes.deallocate() }
        write(into: &bytes, keepAlive: keepAlive, date: Array(date.utf8), framing: HeadFraming(defaults: defaults, server: server))
        return ByteBuffer(UnsafeRawBufferPointer(start: bytes.base, count: bytes.count), countedIn: memory)
    }

    /// Appends the head to `bytes`: the prepared lines, or the status line, the reply's
    /// headers and the defaults it does not set itself; then `Content-Length` (but for
    /// 204 and 304), `Date` (`date`, formatted), `Server` and `Connection`. Nothing is
    /// allocated once `bytes` has grown to a usual head.
    func write(into bytes: inout HeadBytes, keepAlive: Bool, date: [UInt8], framing: HeadFraming) {
        if let prepared {
            bytes.append(prepared.first)
            bytes.append(prepared.second)
            bytes.append(prepared.third)
        } else {
            bytes.appendStatusLine(status)
            for (name, value) in headers { bytes.appendField(name, value) }
            if headers.isEmpty {
                bytes.append(framing.defaultLines)
            } else {
                for (name, value) in framing.defaults where header(name) == nil { bytes.appendField(name, value) }
            }
        }
        if !status.hasNoContent {
            bytes.append("Content-Length: ")
            bytes.appendDecimal(body.count)
            bytes.append("\r\n")
        }
        bytes.append("Date: ")
        bytes.append(date)
        bytes.append("\r\n")
        bytes.append(framing.serverLine)
        bytes.append(keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n")
    }
}

/// A reply's status line and headers written once, ahead, for every answer that carries them
/// (a cached body's, in each coding): up to three pieces, written one after the other, so a
/// piece shared by many answers (a version's header, say) is made once too.
package struct PreparedHead: Sendable {
    let first: ByteBuffer
    let second: ByteBuffer
    let third: ByteBuffer

    package init(_ first: ByteBuffer, _ second: ByteBuffer = .empty, _ third: ByteBuffer = .empty) {
        self.first = first
        self.second = second
        self.third = third
    }

    /// `status`'s line (a first piece; none for a later one) then `headers`' lines, as a
    /// head writes them.
    package static func lines(_ status: HTTPStatus?, _ headers: [(String, String)]) -> [UInt8] {
        var bytes = HeadBytes()
        defer { bytes.deallocate() }
        if let status { bytes.appendStatusLine(status) }
        for (name, value) in headers { bytes.appendField(name, value) }
        return [UInt8](UnsafeRawBufferPointer(start: bytes.base, count: bytes.count))
    }
}

/// What every head of one server writes alike, made once per worker: its default headers'
/// lines and its `Server` line.
struct HeadFraming {
    let defaults: [(String, String)]
    let defaultLines: [UInt8]
    let serverLine: [UInt8]

    init(defaults: [(String, String)], server: String) {
        self.defaults = defaults
        defaultLines = PreparedHead.lines(nil, defaults)
        serverLine = Array("Server: \(server)\r\n".utf8)
    }
}

/// Bytes a head is written into, grown when a head needs more, kept between answers: a
/// connection writes its heads into its own, so an answer allocates nothing for its head.
/// Owned by one holder, which calls ``deallocate()``.
struct HeadBytes {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    func deallocate() { base.deallocate() }

    /// Forgets the bytes written (the memory stays).
    mutating func removeAll() { count = 0 }

    private mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        capacity = max(2 * capacity, count + more)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    mutating func append(_ buffer: ByteBuffer) { append(UnsafeRawBufferPointer(start: buffer.base, count: buffer.count)) }

    mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func appendByte(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// `value` in decimal (a length, a status code: not negative).
    mutating func appendDecimal(_ value: Int) {
        var rest = UInt(max(value, 0)), length = 1, probe = rest
        while probe >= 10 {
            probe /= 10
            length += 1
        }
        reserve(length)
        var end = count + length
        repeat {
            end -= 1
            base.storeBytes(of: UInt8(truncatingIfNeeded: rest % 10) + 0x30, toByteOffset: end, as: UInt8.self)
            rest /= 10
        } while rest > 0
        count += length
    }

    /// `HTTP/1.1 CODE REASON` and its CRLF.
    mutating func appendStatusLine(_ status: HTTPStatus) {
        append("HTTP/1.1 ")
        appendDecimal(status.code)
        appendByte(0x20)
        append(status.reason)
        append("\r\n")
    }

    /// `name: value` and its CRLF.
    mutating func appendField(_ name: String, _ value: String) {
        append(name)
        append(": ")
        append(value)
        append("\r\n")
    }
}

/// A clock reading formatted by `strftime` at most once a second: formatting every answer's
/// time would cost more than the answer on the hot path. One per worker, so no lock.
struct SecondStamp {
    private let format: String
    private let utc: Bool
    private var second = -1
    private var bytes: [UInt8] = []

    /// - Parameters: `format`, a `strftime` format; `utc`, GMT rather than the local zone.
    init(format: String, utc: Bool) {
        self.format = format
        self.utc = utc
    }

    /// The stamp of the current second; the bool says it was formatted anew.
    mutating func now() -> (bytes: [UInt8], isNew: Bool) {
        var clock = time(nil)
        guard Int(clock) != second else { return (bytes, false) }
        second = Int(clock)
        var parts = tm()
        if utc { gmtime_r(&clock, &parts) } else { localtime_r(&clock, &parts) }
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, format, &parts)
        bytes = buffer.prefix(length).map { UInt8(bitPattern: $0) }
        return (bytes, true)
    }
}

/// The `Date` header's value, formatted at most once a second per worker.
struct HTTPDate {
    private var stamp = SecondStamp(format: "%a, %d %b %Y %H:%M:%S GMT", utc: true)

    mutating func now() -> [UInt8] { stamp.now().bytes }
}

/// Seconds on a clock that never jumps.
package func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
