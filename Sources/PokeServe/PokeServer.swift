#if canImport(Glibc)
import CPoll
#endif
import Foundation
import PokeHTTP
import PokeSyncCore

/// `pokesync serve`'s settings.
package struct ServeOptions: Sendable {
    package var layout: MirrorLayout
    package var host: String
    package var port: Int
    /// Absolute URLs in bodies and links start with this (no trailing slash); nil: `http://` + the bound address.
    package var baseURL: String?
    /// With a value, the sprite and cry trees are served at `/sprites/` and `/cries/`, and the
    /// links to files the served version holds point at `URL/sprites/` and `URL/cries/`.
    package var spriteBase: String?
    package var workers = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
    /// `--access-log`: a file appended to, `-` for standard output; nil: no access log.
    package var accessLog: String?
    /// `--metrics-listen`: the address `/metrics` and `/healthz` are answered on; nil: none.
    package var metricsHost: String?
    package var metricsPort = 0
    var limits = HTTPLimits()

    package init(layout: MirrorLayout, host: String, port: Int, baseURL: String?, spriteBase: String?) {
        self.layout = layout
        self.host = host
        self.port = port
        self.baseURL = baseURL
        self.spriteBase = spriteBase
    }

    /// The connection cap (`--max-connections`).
    package var connectionCap: Int {
        get { limits.connections }
        set { limits.connections = newValue }
    }

    /// Connections one client address may hold (`--max-connections-per-address`).
    package var connectionsPerAddress: Int {
        get { limits.connectionsPerAddress }
        set { limits.connectionsPerAddress = newValue }
    }

    /// The rendered-body cache's bound (``HTTPLimits/bodyCacheBytes``).
    package var cacheBytes: Int {
        get { limits.bodyCacheBytes }
        set { limits.bodyCacheBytes = newValue }
    }

    /// Bodies beyond the cache that replies being written may hold (``HTTPLimits/bodiesInFlightBytes``).
    package var inFlightBytes: Int {
        get { limits.bodiesInFlightBytes }
        set { limits.bodiesInFlightBytes = newValue }
    }

    /// The head deadline in seconds (tests lower it).
    package var headSeconds: Double {
        get { limits.headSeconds }
        set { limits.headSeconds = newValue }
    }
}

/// The read-only PokeAPI server over a mirror's latest version (<doc:PokeServe/Serving>).
/// It takes no lock on the mirror: `sync` and `prune` run while it serves.
package enum PokeServer {
    /// Serves until SIGTERM or SIGINT, then finishes the replies in flight and returns.
    /// - Parameter announce: called once listening, with the line to print.
    /// - Throws: `StoreError` when there is no store or it is damaged, `RequestError.noVersions`
    ///   when nothing is published yet, `ServeError` when the address cannot be bound (69), the
    ///   access log cannot be opened or a system call fails (74).
    package static func run(_ options: ServeOptions, announce: (String) -> Void) throws {
        tuneMemoryAllocator()
        prepareProcess()
        // Caught before anything is opened: a signal while starting never ends the process
        // by its default action, and a stop asked for meanwhile stops the servers at once.
        let signals = Self.signals()
        let board = VersionBoard()
        let keeper = try StoreKeeper(layout: options.layout)
        let first = try keeper.use { store, generation in try board.refresh(store: store, generation: generation) }
        let listener = try ServeError.mapping { () throws(HTTPServerError) in try Listener(host: options.host, port: options.port) }
        let base = options.baseURL ?? "http://\(listener.boundAddress)"
        let sprites = options.spriteBase.map { _ in SpriteFiles(root: options.layout.spritesFolder) }
        let cries = options.spriteBase.map { _ in SpriteFiles(root: LinkedTree.cries.folder(options.layout)) }
        // Every body and head of both servers, counted for the bounds below.
        let memory = MemoryBudget()
        let site = Site(form: ServedForm(base: base, spriteBase: options.spriteBase), cache: BodyCache(capacity: options.cacheBytes),
                        board: board, sprites: sprites, cries: cries, layout: options.layout, keeper: keeper,
                        bodyBytesLimit: options.limits.bodyBytesLimit, smallBody: options.limits.smallBodyBytes, memory: memory)
        var limits = options.limits
        // Stalled connections are closed well before new bodies are refused.
        limits.shedBytes = limits.bodyShedBytes
        let accessLog = try ServeError.mapping { () throws(HTTPServerError) in
            try options.accessLog.map { path throws(HTTPServerError) in try AccessLog(path: path, report: report) }
        }
        let configuration = Self.configuration(limits: limits, workerCount: options.workers, defaultHeaders: Self.defaultHeaders,
                                               memory: memory, accessLog: accessLog)
        let server = try ServeError.mapping { () throws(HTTPServerError) in
            try HTTPServer(listener: listener, configuration: configuration) { APIResponder(site: site) }
        }
        var others: [HTTPServer] = []
        var metricsLine = ""
        if let metricsHost = options.metricsHost {
            // Its own listener and one worker, with small limits: a scraper and a health
            // check, never the public's traffic. The backlog stays the public port's, so a
            // burst of connections does not fill it and have the kernel drop a health
            // check's SYN (sent again by TCP only after a second).
            let metricsListener = try ServeError.mapping { () throws(HTTPServerError) in
                try Listener(host: metricsHost, port: options.metricsPort)
            }
            var metricsLimits = HTTPLimits()
            metricsLimits.connections = 64
            // A quarter of the cap to one address, as on the public port: one client cannot
            // fill the 64 alone and make a health check from elsewhere wait for room.
            metricsLimits.connectionsPerAddress = 16
            let metricsConfiguration = Self.configuration(limits: metricsLimits, workerCount: 1, defaultHeaders: [],
                                                          memory: memory, accessLog: nil)
            others.append(try ServeError.mapping { () throws(HTTPServerError) in
                try HTTPServer(listener: metricsListener, configuration: metricsConfiguration) { [server] in
                    OperationsResponder(site: site, traffic: { server.traffic() })
                }
            })
            metricsLine = "; metrics at http://\(metricsListener.boundAddress)/metrics"
        }
        let documents = first.kinds.values.reduce(0) { $0 + $1.entries.count } + first.encounters.count + (first.meta == nil ? 0 : 1)
        announce("serving version \(first.number) (\(documents) documents, X-PokeAPI-Hash \(first.tag)) at \(base)\(APIShape.rootPath)"
                 + " (listening on \(listener.boundAddress)\(sprites == nil ? "" : "; sprites and cries at \(options.spriteBase!)/sprites/ and /cries/")\(metricsLine))")
        let watcher = VersionWatcher(keeper: keeper, board: board)
        defer { watcher.stop() }
        let trimmer = FreedMemoryTrimmer(cache: site.cache)
        defer { trimmer.stop() }
        guard server.run(alongside: others, signals: signals) else { throw ServeError(.system("starting a worker", EIO)) }
    }
}

/// glibc's allocator, set for a server whose big allocations (bodies of up to a few MB) come
/// and go: each above 64 kB is its own mapping, given back when freed (glibc otherwise raises
/// that threshold to the largest block freed, and big bodies then fragment the heap, which
/// never shrinks), at most two arenas (one per worker thread would keep its own free
/// space), and free space at the heap's top given back past 1 MB.
func tuneMemoryAllocator() {
    #if os(Linux)
    _ = mallopt(M_MMAP_THRESHOLD, 64 << 10)
    _ = mallopt(M_ARENA_MAX, 2)
    _ = mallopt(M_TRIM_THRESHOLD, 1 << 20)
    #endif
}
