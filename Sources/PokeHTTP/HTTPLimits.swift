/// What `serve` accepts from a client and how long it waits: every bound that keeps a
/// client (slow, huge or hostile) from holding memory, descriptors or a worker.
package struct HTTPLimits: Sendable {
    /// The request line, its CRLF not included: a longer one is answered 414 (nginx's
    /// default `large_client_header_buffers` is 8 kB).
    package var requestLine = 8 * 1024
    /// The whole head (request line and headers): a longer one is answered 431. This is
    /// also the most a connection ever buffers of a client's input.
    package var head = 16 * 1024
    /// Header fields in one head: more is answered 431.
    package var headerFields = 100
    /// From the first byte of a request to the end of its head; a client slower than
    /// that is dropped (nginx's `client_header_timeout`), also one that connects and sends nothing.
    package var headSeconds = 10.0
    /// At the connection cap, a head (a first one included: a client that connected and has
    /// sent nothing) is closed to make room only once it has been arriving this long: a
    /// client just accepted, its request on its way, is never the one closed.
    var slowHeadSeconds = 1.0
    /// How long a keep-alive connection may wait idle for its next request (less when the
    /// server is full: idle connections then make room, oldest first).
    var idleSeconds = 20.0
    /// How long a response may make no progress (a client that does not read) before
    /// the connection is dropped and the body it pinned freed.
    var stalledWriteSeconds = 30.0
    /// Open client connections; at the cap idle ones are closed to make room, and when
    /// none is idle new ones wait in the kernel's backlog.
    package var connections = 1024
    /// Open connections from one client address; more are answered 503 and closed.
    /// Behind a reverse proxy (every connection from one address) it is raised to `connections`.
    package var connectionsPerAddress = 256
    /// Requests of one connection answered before it is closed (a bound on how long one
    /// client keeps a worker's slot; clients reconnect).
    var requestsPerConnection = 10_000
    /// Requests of one connection answered in one turn of its worker; the rest of what it
    /// pipelined waits for the next turn, after every other ready connection had its turn.
    package var requestsPerTurn = 8
    /// Bytes of replies a connection may have waiting to be written: no further pipelined
    /// request of it is answered (rendered) until the client has read below this. One reply
    /// may take it over (a body is queued whole), so a connection holds at most this plus one body.
    package var queuedReplyBytes = 64 * 1024
    /// SO_SNDBUF of every client socket (Linux doubles it for its bookkeeping): the kernel's
    /// share of a connection's unread replies. Without it the kernel grows it to 4 MB.
    package var socketSendBuffer = 64 * 1024
    /// Past this many bytes alive in the server's ``MemoryBudget``, each worker closes its
    /// connections whose replies have made no progress for `shedAfterSeconds`, longest
    /// stalled first, until back under it: memory goes to clients that read.
    package var shedBytes = Int.max
    var shedAfterSeconds = 1.0
    /// The most time a worker spends on ready connections before it looks at new ones and
    /// the rest again (each connection's own share is `requestsPerTurn` and `queuedReplyBytes`).
    var turnSeconds = 0.05
    /// On SIGTERM, how long responses in flight may take to finish.
    var drainSeconds = 10.0

    // The memory an application's bodies may hold (serve's rendered bodies), with the
    // other bounds so that every bound a client can push against is in this struct.

    /// The rendered-body cache's bound, plain and gzip'd bytes together.
    package var bodyCacheBytes = 32 << 20
    /// Bytes of bodies beyond the cache that replies being written may hold (bodies the
    /// cache has dropped meanwhile, sprites): past cache + this, new bodies wait (503).
    package var bodiesInFlightBytes = 32 << 20
    /// A new body at most this big is made whatever the bodies alive: a small document or
    /// page is never refused.
    package var smallBodyBytes = 64 << 10
    /// Bodies alive past which a request needing a new body over ``smallBodyBytes`` is
    /// answered 503.
    package var bodyBytesLimit: Int { bodyCacheBytes + bodiesInFlightBytes }
    /// What ``shedBytes`` is set to for bodies so bounded: stalled connections are closed
    /// well before new bodies are refused.
    package var bodyShedBytes: Int { bodyCacheBytes + bodiesInFlightBytes / 2 }

    /// The defaults above.
    package init() {}
}
