import Foundation
import PokeHTTP
import PokeServe
import PokeSyncCore

/// `pokesync serve`: the mirror's latest version as a read-only PokeAPI.
struct ServeCommand {
    /// Where serve listens without --listen.
    static let defaultListen = "127.0.0.1:8080"
    private static let limits = HTTPLimits()

    static let listen = OptionSpec.option("listen", "HOST:PORT", default: defaultListen, help: """
        the address to listen on (default \(defaultListen); 0.0.0.0:8080 for a LAN,
        [::1]:8080 for IPv6; port 0 picks a free one, printed at start)
        """)
    static let baseURL = OptionSpec.option("base-url", "URL", help: """
        absolute URLs in bodies, links and redirects start with URL (default
        http:// and the address listened on); set it to the address clients use,
        e.g. https://pokeapi.example.org behind a reverse proxy. The request's Host
        header is never used.
        """)
    static let spriteBase = OptionSpec.option("sprite-base", "URL", help: """
        serve the mirror's sprites/ and cries/ trees at /sprites/ and /cries/, and
        point each link in documents to a file the served version holds at
        URL/sprites/... or URL/cries/... (URL is usually the same as --base-url);
        links to files it does not hold keep upstream's URL
        """)
    static let maxConnections = OptionSpec.option(
        "max-connections", "N", .wholeNumber(1 ... 100_000), default: "\(limits.connections)", help: """
        open client connections (default \(limits.connections)); at the cap a new client gets
        the slot of the longest-idle keep-alive connection (or of the
        slowest head), else waits
        """)
    static let maxConnectionsPerAddress = OptionSpec.option(
        "max-connections-per-address", "N", .wholeNumber(1 ... 100_000), default: "\(limits.connectionsPerAddress)", help: """
        connections one client address may hold (default \(limits.connectionsPerAddress)); more are
        answered 503. Behind a reverse proxy every client comes from its
        address: set it to --max-connections and limit clients in the proxy.
        """)
    static let accessLog = OptionSpec.option("access-log", "FILE|-", help: """
        a line per answer in nginx's combined format, the request time in
        seconds after it; - for standard output. Written off the answer path:
        when the disk (or a reader of standard output) cannot keep up, lines
        are dropped (and counted), never answers. SIGHUP reopens FILE (after
        logrotate's mv and create); until a reopen succeeds, lines are dropped
        and counted.
        """)
    static let metricsListen = OptionSpec.option("metrics-listen", "HOST:PORT", help: """
        answer GET /metrics (Prometheus text format) and /healthz (200 with the
        served version while the store can be read, else 503) on this address,
        never on --listen's
        """)

    /// `pokesync help serve`.
    static let spec = CommandSpec(
        name: "serve", positionals: "", positionalCount: 0...0,
        usage: [.optional(.mirror), .optional(listen), .optional(baseURL), .optional(spriteBase), .optional(maxConnections),
                .optional(maxConnectionsPerAddress), .optional(accessLog), .optional(metricsListen)],
        sections: [
            .text("""
            Serves the latest published version of the mirror, read-only, as the PokeAPI server answers:
            GET or HEAD /api/v2/ (the root), /api/v2/{kind}/?limit=L&offset=O (a page of the list, next and
            previous as absolute URLs), /api/v2/{kind}/{id or name}/, /api/v2/pokemon/{id}/encounters and
            /api/v2/meta/ where the mirror holds them. A path without its trailing slash is a 301 to the
            slashed one; an unknown one a 404 with a JSON body; OPTIONS a 204 (a CORS preflight is
            allowed); other methods a 405.
            A version that `sync` publishes is served from the next request on, without a restart; it
            takes no lock, so the nightly sync and prune run while it serves. SIGTERM or Ctrl-C finishes
            the responses in flight and exits 0.

            """),
            .options([listen, baseURL, spriteBase, maxConnections, maxConnectionsPerAddress, accessLog, metricsListen]),
            .text("""

            Headers: ETag (the document's hash, "-gzip" added for the gzip'd body; If-None-Match gives 304), Content-Encoding: gzip when
            accepted, Cache-Control, Vary, Access-Control-Allow-Origin: *, X-PokeAPI-Hash (names the served
            version: a sync from this server takes the no-change shortcut while it serves the same one).
            Limits: request line \(kB(limits.requestLine)) (414), head \(kB(limits.head)) or \(limits.headerFields) fields (431), a head must arrive within
            \(Int(limits.headSeconds)) s; a connection has at most \(kB(limits.queuedReplyBytes)) of replies waiting (plus one body) before its next
            pipelined request is answered, \(limits.requestsPerTurn) requests a turn, \(kB(2 * limits.socketSendBuffer)) in the kernel's send buffer;
            \(MB(limits.bodyCacheBytes)) of rendered bodies cached, kept for what is asked for often. When bodies alive
            pass \(MB(limits.bodyShedBytes)), connections whose replies have not moved for a second are closed; past \(MB(limits.bodyBytesLimit))
            a request needing a new body over \(kB(limits.smallBodyBytes)) is answered 503 with Retry-After.

            Exit codes: 0 stopped by SIGTERM or SIGINT, 64 usage, no mirror store or no version published
            yet, 65 corrupt store, 69 cannot listen on the address (in use, not this host's), 74 the store
            or the access log cannot be read or opened (an I/O error). A read-only mirror folder (no -wal or -shm, none can be made)
            is served as an unchanging file; a store replaced under it is reopened within a second.
            """),
        ],
        helpColumn: 23)

    /// `8 kB`, `48 MB`: a bound as the help says it (binary units, as the limits are written).
    private static func kB(_ bytes: Int) -> String { "\(bytes >> 10) kB" }
    private static func MB(_ bytes: Int) -> String { "\(bytes >> 20) MB" }

    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        // First of all: SIGPIPE and SIGHUP ignored (SIGHUP already, by CProcessStart's code
        // before main), the standard descriptors held open and their writes queued, so that
        // neither a signal at start nor an output gone away or stalled stops or holds serve.
        PokeServer.prepareProcess()
        arguments = try Arguments(words, command: Self.spec)
        try arguments.expectPositionals(Self.spec)
    }

    func execute() throws -> ExitStatus {
        let (host, port) = try Self.address(arguments[Self.listen] ?? Self.defaultListen)
        let base = try arguments[Self.baseURL].map { try BaseURLOption.parse($0, option: "base-url") }
        let sprites = try arguments[Self.spriteBase].map { try BaseURLOption.parse($0, option: "sprite-base") }
        let layout = MirrorLayout.resolve(option: arguments[.mirror])
        var options = ServeOptions(layout: layout, host: host, port: port, baseURL: base, spriteBase: sprites)
        if let cap = try arguments.integer(Self.maxConnections) { options.connectionCap = cap }
        if let share = try arguments.integer(Self.maxConnectionsPerAddress) {
            options.connectionsPerAddress = share
        }
        if let log = arguments[Self.accessLog] {
            guard !log.isEmpty else { throw UsageError("--access-log takes a file, or - for standard output") }
            options.accessLog = log
        }
        if let metrics = arguments[Self.metricsListen] {
            let (metricsHost, metricsPort) = try Self.address(metrics, option: "metrics-listen")
            guard metricsPort == 0 || metricsPort != port else {
                throw UsageError("--metrics-listen must be another address than --listen (the metrics are never on the public port)")
            }
            (options.metricsHost, options.metricsPort) = (metricsHost, metricsPort)
        }
        if base == nil && (host == "0.0.0.0" || host == "::") {
            standardError("pokesync: warning: listening on every address, links name \(host); pass --base-url with the address clients use\n")
        }
        // Written straight away (not through print's buffer): scripts wait for the first line.
        // Queued, never waited for: an output that went away loses the lines, one that
        // stalled keeps them (main gives them a second at the end); serve goes on, and
        // exits 0 when stopped.
        try PokeServer.run(options) { line in StandardStreams.output(line + "\n") }
        StandardStreams.output("stopped\n")
        return .success
    }

    /// `HOST:PORT` or `[V6]:PORT`.
    static func address(_ text: String, option: String = "listen") throws -> (String, Int) {
        var host: Substring, portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex) ..< close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw UsageError("--\(option) takes HOST:PORT (got \"\(text)\")") }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw UsageError("--\(option) takes HOST:PORT (got \"\(text)\")") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else {
            throw UsageError("--\(option) takes HOST:PORT with a port from 0 to 65535 (got \"\(text)\")")
        }
        return (String(host), port)
    }
}
