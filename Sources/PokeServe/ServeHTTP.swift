import Foundation
import PokeHTTP

/// What `serve` tells its HTTP layer, which knows nothing of pokesync or of the PokeAPI:
/// its name, its headers, how it words an error, the request fields it reads, its signals
/// (<doc:PokeServe/Serving>).
extension PokeServer {
    /// The `Server` header of every answer.
    static let serverName = "pokesync"

    /// The headers every answer of the public address carries, refusals and rejections too:
    /// any origin is allowed. A cached body's prepared head holds them already (``APIResponder``).
    static let defaultHeaders = [("Access-Control-Allow-Origin", "*")]

    /// Ignored from serve's first Swift instruction (``prepareProcess()``): SIGPIPE (an
    /// output or a client gone away is an error to a write, not the end), SIGHUP until
    /// ``signals()`` catches it (one sent at start never stops the process; the command
    /// line's executable ignores it even earlier, before the libraries load), SIGXFSZ (an
    /// access log past `ulimit -f` fails its writes with EFBIG and drops lines, as a full
    /// disk does).
    static let ignoredSignals = [SIGPIPE, SIGHUP, SIGXFSZ]

    /// Run first of all: the signals above ignored, the standard descriptors held open and
    /// their writes queued (``StandardStreams``): no reader of them ever holds serve.
    package static func prepareProcess() {
        StandardStreams.prepare(ignoring: ignoredSignals)
    }

    /// SIGTERM and SIGINT stop the servers (replies in flight finished); SIGHUP reopens the
    /// access log (logrotate).
    static func signals() -> ServerSignals {
        ServerSignals(stop: [SIGTERM, SIGINT], reopenLogs: [SIGHUP])
    }

    /// Says a trouble of the server on standard error, as serve's other lines.
    @Sendable static func report(_ line: String) {
        StandardStreams.write("pokesync: serve: \(line)\n")
    }

    /// A server of serve's: `limits`, `workerCount` workers, the headers every answer
    /// carries, errors worded as Django REST framework words them, the request fields
    /// ``RequestHead`` gives the responders, its heads counted in `memory`.
    static func configuration(limits: HTTPLimits, workerCount: Int, defaultHeaders: [(String, String)],
                              memory: MemoryBudget, accessLog: AccessLog?) -> HTTPServerConfiguration {
        HTTPServerConfiguration(serverName: serverName, limits: limits, workerCount: workerCount,
                                defaultHeaders: defaultHeaders, errorBody: Reply.detailBody,
                                keptRequestHeaders: RequestHead.servedFields, memory: memory, accessLog: accessLog,
                                threadName: "pokesync-serve", report: report)
    }
}

extension Reply {
    /// A small JSON reply, `{"detail":"..."}`, as Django REST framework words its errors;
    /// its body counted in `memory`.
    static func detail(_ status: HTTPStatus, _ text: String, headers: [(String, String)] = [], memory: MemoryBudget) -> Reply {
        Reply.error(status, detailBody(status, text), headers: headers, memory: memory)
    }

    /// `{"detail":"..."}` as `application/json`: the body of every error serve answers,
    /// the HTTP layer's refusals included.
    @Sendable static func detailBody(_ status: HTTPStatus, _ text: String) -> ErrorBody {
        ErrorBody(contentType: "application/json", bytes: Array("{\"detail\":\(jsonString(text))}".utf8))
    }
}

extension RequestHead {
    /// The request header fields serve reads; the HTTP layer reads past every other one.
    static let servedFields: Set<String> = ["if-none-match", "accept-encoding", "origin", "access-control-request-method",
                                            "access-control-request-headers"]

    var ifNoneMatch: String? { field("if-none-match") }
    var acceptEncoding: String? { field("accept-encoding") }
    /// `Origin`, `Access-Control-Request-Method` and `-Headers`: what a CORS preflight sends.
    var origin: String? { field("origin") }
    var corsMethod: String? { field("access-control-request-method") }
    var corsHeaders: String? { field("access-control-request-headers") }
}
