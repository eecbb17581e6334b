/// Everything the application decides about one ``HTTPServer``, given in one value: the
/// server knows HTTP, the application knows who it is, how it words an error, which
/// request headers it reads and what its memory is.
///
/// Signals are not in it: the application says which ones stop its servers or reopen
/// their access logs (``ServerSignals``) and what the process ignores
/// (``StandardStreams/prepare(ignoring:)``). It must keep SIGPIPE from ending the process
/// (ignore it) before serving: a client that leaves in the middle of a reply would
/// otherwise end it.
package struct HTTPServerConfiguration: Sendable {
    /// Every bound on clients: sizes, deadlines, connections.
    package var limits: HTTPLimits
    /// Event-loop threads, each with its own responder.
    package var workerCount: Int
    /// The `Server` header's value, on every answer.
    package var serverName: String
    /// Headers every answer carries unless the reply sets them itself, refusals at accept
    /// and the parser's rejections included (``Reply/write(into:keepAlive:date:framing:)``).
    /// Fixed for the server's life: each worker writes their lines once and copies them into
    /// every head (a ``PreparedHead`` holds them already). What changes while serving (the
    /// version served) is the responder's to set.
    package var defaultHeaders: [(String, String)]
    /// The body of a refusal the server answers itself (a head too long or malformed, an
    /// address past its share of connections), from its status and a sentence saying why.
    package var errorBody: @Sendable (_ status: HTTPStatus, _ message: String) -> ErrorBody
    /// The request header fields the responders read, kept in ``RequestHead/fields``
    /// (lowercase names); every other field is read past (the server's own, `Connection`,
    /// `Content-Length`, `Transfer-Encoding`, `Referer` and `User-Agent`, are acted on or logged).
    package var keptRequestHeaders: Set<String>
    /// Where the heads written are counted, beside the application's bodies: past
    /// ``HTTPLimits/shedBytes`` alive in it, stalled connections are shed.
    package var memory: MemoryBudget
    /// A line per answer, when given.
    package var accessLog: AccessLog?
    /// The start of the server's thread names (`NAME-worker`, `NAME-accept`, `NAME-log`),
    /// as `ps -T` and a debugger show them (Linux keeps 15 bytes of a name).
    package var threadName: String
    /// Says what goes wrong inside the server that no answer says (a worker that cannot
    /// start, an access log that cannot be written): a line without its newline.
    package var report: @Sendable (String) -> Void

    /// A server named `serverName` with `limits`; the rest as given, or none: no default
    /// header, a plain-text error body, no request header kept, a budget of its own, no
    /// access log, troubles written to standard error.
    package init(serverName: String, limits: HTTPLimits = HTTPLimits(), workerCount: Int = 1,
                 defaultHeaders: [(String, String)] = [],
                 errorBody: @escaping @Sendable (HTTPStatus, String) -> ErrorBody = ErrorBody.plainText,
                 keptRequestHeaders: Set<String> = [], memory: MemoryBudget = MemoryBudget(), accessLog: AccessLog? = nil,
                 threadName: String = "http", report: @escaping @Sendable (String) -> Void = { StandardStreams.write($0 + "\n") }) {
        self.serverName = serverName
        self.limits = limits
        self.workerCount = workerCount
        self.defaultHeaders = defaultHeaders
        self.errorBody = errorBody
        self.keptRequestHeaders = Set(keptRequestHeaders.map { $0.lowercased() })
        self.memory = memory
        self.accessLog = accessLog
        self.threadName = threadName
        self.report = report
    }

    /// A refusal's reply: the error body, then `headers`; the connection closes after it.
    func refusal(_ status: HTTPStatus, _ message: String, headers: [(String, String)] = []) -> Reply {
        Reply.error(status, errorBody(status, message), headers: headers, closes: true, memory: memory)
    }
}

/// An error's body as the application words its errors.
package struct ErrorBody: Sendable {
    package var contentType: String
    package var bytes: [UInt8]

    package init(contentType: String, bytes: [UInt8]) {
        self.contentType = contentType
        self.bytes = bytes
    }

    /// The message and a newline, as `text/plain` (the default).
    @Sendable package static func plainText(_ status: HTTPStatus, _ message: String) -> ErrorBody {
        ErrorBody(contentType: "text/plain; charset=utf-8", bytes: Array((message + "\n").utf8))
    }
}
