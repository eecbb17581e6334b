import Foundation
import PokeHTTP
import PokeServe
import PokeSyncCore

/// `pokesync serve`: the mirror's latest version as a read-only PokeAPI.
struct ServeCommand {
    /// The options and flags it takes; its help names each (a test holds them together).
    static let options: Set<String> = ["mirror", "listen", "base-url", "sprite-base", "max-connections",
                                       "max-connections-per-address", "access-log", "metrics-listen"]
    static let flags: Set<String> = []
    /// `pokesync help serve`.
    static let help = """
    usage: pokesync serve [--mirror DIR] [--listen HOST:PORT] [--base-url URL] [--sprite-base URL]
                          [--max-connections N] [--max-connections-per-address N]
                          [--access-log FILE|-] [--metrics-listen HOST:PORT]

    Serves the latest published version of the mirror, read-only, as the PokeAPI server answers:
    GET or HEAD /api/v2/ (the root), /api/v2/{kind}/?limit=L&offset=O (a page of the list, next and
    previous as absolute URLs), /api/v2/{kind}/{id or name}/, /api/v2/pokemon/{id}/encounters and
    /api/v2/meta/ where the mirror holds them. A path without its trailing slash is a 301 to the
    slashed one; an unknown one a 404 with a JSON body; OPTIONS a 204 (a CORS preflight is
    allowed); other methods a 405.
    A version that `sync` publishes is served from the next request on, without a restart; it
    takes no lock, so the nightly sync and prune run while it serves. SIGTERM or Ctrl-C finishes
    the responses in flight and exits 0.

      --listen HOST:PORT   the address to listen on (default 127.0.0.1:8080; 0.0.0.0:8080 for a LAN,
                           [::1]:8080 for IPv6; port 0 picks a free one, printed at start)
      --base-url URL       absolute URLs in bodies, links and redirects start with URL (default
                           http:// and the address listened on); set it to the address clients use,
                           e.g. https://pokeapi.example.org behind a reverse proxy. The request's Host
                           header is never used.
      --sprite-base URL    serve the mirror's sprites/ and cries/ trees at /sprites/ and /cries/, and
                           point each link in documents to a file the served version holds at
                           URL/sprites/... or URL/cries/... (URL is usually the same as --base-url);
                           links to files it does not hold keep upstream's URL
      --max-connections N  open client connections (default 1024); at the cap a new client gets
                           the slot of the longest-idle keep-alive connection (or of the
                           slowest head), else waits
      --max-connections-per-address N
                           connections one client address may hold (default 256); more are
                           answered 503. Behind a reverse proxy every client comes from its
                           address: set it to --max-connections and limit clients in the proxy.
      --access-log FILE    a line per answer in nginx's combined format, the request time in
                           seconds after it; - for standard output. Written off the answer path:
                           when the disk (or a reader of standard output) cannot keep up, lines
                           are dropped (and counted), never answers. SIGHUP reopens FILE (after
                           logrotate's mv and create); until a reopen succeeds, lines are dropped
                           and counted.
      --metrics-listen HOST:PORT
                           answer GET /metrics (Prometheus text format) and /healthz (200 with the
                           served version while the store can be read, else 503) on this address,
                           never on --listen's

    Headers: ETag (the document's hash, "-gzip" added for the gzip'd body; If-None-Match gives 304), Content-Encoding: gzip when
    accepted, Cache-Control, Vary, Access-Control-Allow-Origin: *, X-PokeAPI-Hash (names the served
    version: a sync from this server takes the no-change shortcut while it serves the same one).
    Limits: request line 8 kB (414), head 16 kB or 100 fields (431), a head must arrive within
    10 s; a connection has at most 64 kB of replies waiting (plus one body) before its next
    pipelined request is answered, 8 requests a turn, 128 kB in the kernel's send buffer;
    40 MB of rendered bodies cached, kept for what is asked for often. When bodies alive
    pass 56 MB, connections whose replies have not moved for a second are closed; past 72 MB
    a request needing a new body over 64 kB is answered 503 with Retry-After.

    Exit codes: 0 stopped by SIGTERM or SIGINT, 64 usage, no mirror store or no version published
    yet, 65 corrupt store, 69 cannot listen on the address (in use, not this host's), 74 the store
    or the access log cannot be read or opened (an I/O error). A read-only mirror folder (no -wal or -shm, none can be made)
    is served as an unchanging file; a store replaced under it is reopened within a second.
    """

    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        // First of all: SIGPIPE and SIGHUP ignored (SIGHUP already, by CProcessStart's code
        // before main), the standard descriptors held open and their writes queued, so that
        // neither a signal at start nor an output gone away or stalled stops or holds serve.
        PokeServer.prepareProcess()
        arguments = try Arguments(words, options: Self.options, flags: Self.flags)
        try arguments.expectPositionals(0...0, usage: Help.synopsis(Self.help))
    }

    func execute() throws -> ExitStatus {
        let (host, port) = try Self.address(arguments.options["listen"] ?? "127.0.0.1:8080")
        let base = try arguments.options["base-url"].map { try BaseURLOption.parse($0, option: "base-url") }
        let sprites = try arguments.options["sprite-base"].map { try BaseURLOption.parse($0, option: "sprite-base") }
        let layout = MirrorLayout.resolve(option: arguments.options["mirror"])
        var options = ServeOptions(layout: layout, host: host, port: port, baseURL: base, spriteBase: sprites)
        if let cap = try arguments.integer("max-connections", in: 1 ... 100_000) { options.connectionCap = cap }
        if let share = try arguments.integer("max-connections-per-address", in: 1 ... 100_000) {
            options.connectionsPerAddress = share
        }
        if let log = arguments.options["access-log"] {
            guard !log.isEmpty else { throw UsageError("--access-log takes a file, or - for standard output") }
            options.accessLog = log
        }
        if let metrics = arguments.options["metrics-listen"] {
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
