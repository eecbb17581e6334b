import Foundation
import PokeHTTP

/// What `--metrics-listen` answers, on its own address (never the public one): `/metrics`,
/// the server's counters in Prometheus' text format, and `/healthz`, whether the store
/// can be read and which version is served (<doc:PokeServe/Serving>).
final class OperationsResponder: Responder {
    private let site: Site
    /// The public server's figures at the moment of asking.
    private let traffic: @Sendable () -> TrafficReport

    init(site: Site, traffic: @escaping @Sendable () -> TrafficReport) {
        self.site = site
        self.traffic = traffic
    }

    /// Answered on the worker's thread: the metrics and the health are small.
    func answer(_ request: RequestHead) -> Answer { .ready(reply(request)) }

    private func reply(_ request: RequestHead) -> Reply {
        guard request.isGetOrHead else {
            return Reply.detail(.methodNotAllowed, "Method \"\(request.method)\" not allowed.", headers: [("Allow", "GET, HEAD")],
                                memory: site.memory)
        }
        switch request.path {
        case "/metrics":
            return Reply(status: .ok, headers: [("Content-Type", PrometheusText.contentType), ("Cache-Control", "no-store")],
                         body: ByteBuffer(Array(metrics().utf8), countedIn: site.memory), route: "metrics")
        case "/healthz":
            return health()
        default:
            return Reply.detail(.notFound, "Not found: this address answers /metrics and /healthz.", memory: site.memory)
        }
    }

    /// 200 with the served version while the store can be read, else 503 with the reason.
    private func health() -> Reply {
        let headers = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
        if let problem = site.keeper.problem() {
            let body = "{\"status\":\"unavailable\",\"detail\":\(jsonString(problem))}"
            return Reply(status: .serviceUnavailable, headers: headers, body: ByteBuffer(Array(body.utf8), countedIn: site.memory), route: "healthz")
        }
        let version = site.board.served?.number ?? 0
        let body = "{\"status\":\"ok\",\"version\":\(version)}"
        return Reply(status: .ok, headers: headers, body: ByteBuffer(Array(body.utf8), countedIn: site.memory), route: "healthz")
    }

    private func metrics() -> String {
        let report = traffic()
        let cache = site.cache.figures
        var text = PrometheusText()
        let answers = report.counts.answers.sorted { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }
        text.family("pokesync_serve_requests_total", .counter, "Requests answered on the public address, by route and status.",
                    answers.map { ([("route", $0.key.route), ("status", String($0.key.status))], Double($0.value)) })
        text.family("pokesync_serve_sent_bytes_total", .counter, "Bytes written to clients (heads and bodies).",
                    Double(report.counts.sentBytes))
        text.family("pokesync_serve_body_cache_hits_total", .counter, "Bodies found in the rendered-body cache.", Double(cache.hits))
        text.family("pokesync_serve_body_cache_misses_total", .counter, "Bodies not in the cache (rendered from the store).",
                    Double(cache.misses))
        text.family("pokesync_serve_body_cache_bytes", .gauge, "Bytes the body cache holds (plain and gzip'd).", Double(cache.bytes))
        text.family("pokesync_serve_connections_open", .gauge, "Client connections open.", Double(report.openConnections))
        text.family("pokesync_serve_connections_accepted_total", .counter, "Client connections accepted.",
                    Double(report.acceptedConnections))
        text.family("pokesync_serve_connections_refused_total", .counter,
                    "Connections answered 503 and closed at once, by reason (per_address: the address held its share).",
                    [([("reason", "per_address")], Double(report.refusedPerAddress))])
        text.family("pokesync_serve_connections_closed_total", .counter,
                    "Connections the server closed, by reason: cap_idle and cap_slow_head made room at the connection cap, "
                    + "head_deadline, idle_timeout, stalled_write, shed (memory short, replies not read).",
                    CloseReason.allCases.map { ([("reason", $0.rawValue)], Double(report.counts.closed[$0] ?? 0)) })
        let unavailable = report.counts.answers.filter { $0.key.status == 503 }.reduce(0) { $0 + $1.value } + report.refusedPerAddress
        text.family("pokesync_serve_unavailable_total", .counter, "Answers 503 (busy, the mirror changing, an address past its share).",
                    Double(unavailable))
        text.family("pokesync_serve_access_log_dropped_lines_total", .counter,
                    "Access-log lines dropped: the file could not keep up, refused them or could not be reopened.", Double(report.accessLogDropped))
        if let served = site.board.served {
            text.family("pokesync_serve_version", .gauge, "The number of the version served.", Double(served.number))
            if let published = served.published {
                text.family("pokesync_serve_version_published_timestamp_seconds", .gauge,
                            "When the version served was published, in seconds since the epoch.", published.timeIntervalSince1970)
            }
        }
        text.family("pokesync_serve_store_reopens_total", .counter, "Times the store was reopened after being replaced (every reopen).",
                    Double(site.keeper.reopenings))
        return text.text
    }
}
