#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a responder answers to one request. ``head(keepAlive:date:defaults:server:memory:)`` is
/// the one place a head is written, for every answer the server gives (refusals at accept and
/// the parser's rejections included): the reply's headers, the server's default headers
/// (``HTTPServerConfiguration/defaultHeaders``), then the framing ones
/// (`Content-Length`, `Date`, `Server`, `Connection`); the connection writes head and body
/// with one `writev`.
package struct Reply {
    var status: HTTPStatus
    /// Headers in the order written; names as they should appear.
    var headers: [(String, String)]
    /// The body a GET gets (a HEAD or a 304 sends its length, or nothing, but not the bytes).
    var body: ByteBuffer
    /// False for HEAD and 304: the head only.
    var sendsBody = true
    /// The connection closes after this reply.
    var closes = false
    /// What kind of request this answers, as the metrics count it (`document`, `list`...):
    /// a short name the responder picks; the HTTP layer only carries it.
    package var route = "other"

    package init(status: HTTPStatus, headers: [(String, String)] = [], body: ByteBuffer = .empty, sendsBody: Bool = true,
         closes: Bool = false, route: String = "other") {
        self.route = route
        self.status = status
        self.headers = headers
        self.body = body
        self.sendsBody = sendsBody
        self.closes = closes
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
    /// Written as bytes into one array reserved for a usual head (512 bytes; a longer one
    /// grows it): a String grown piece by piece, then copied out as UTF-8, cost more on
    /// every answer.
    func head(keepAlive: Bool, date: String, defaults: [(String, String)], server: String, memory: MemoryBudget) -> ByteBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        bytes.append(contentsOf: String(status.code).utf8)
        bytes.append(0x20)
        bytes.append(contentsOf: status.reason.utf8)
        bytes.append(contentsOf: "\r\n".utf8)
        for (name, value) in headers { bytes.appendField(name, value) }
        for (name, value) in defaults where header(name) == nil { bytes.appendField(name, value) }
        if !status.hasNoContent { bytes.appendField("Content-Length", String(body.count)) }
        bytes.appendField("Date", date)
        bytes.appendField("Server", server)
        bytes.append(contentsOf: keepAlive ? "Connection: keep-alive\r\n\r\n".utf8 : "Connection: close\r\n\r\n".utf8)
        return ByteBuffer(bytes, countedIn: memory)
    }
}

extension [UInt8] {
    /// `name: value` and its CRLF.
    fileprivate mutating func appendField(_ name: String, _ value: String) {
        append(contentsOf: name.utf8)
        append(contentsOf: ": ".utf8)
        append(contentsOf: value.utf8)
        append(contentsOf: "\r\n".utf8)
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
    private var text = ""

    mutating func now() -> String {
        let (bytes, isNew) = stamp.now()
        if isNew { text = String(decoding: bytes, as: UTF8.self) }
        return text
    }
}

/// Seconds on a clock that never jumps.
package func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
