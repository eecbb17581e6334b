/// What `serve` accepts from a client and how long it waits: every bound that keeps a
/// client (slow, huge or hostile) from holding memory, descriptors or a worker.
struct HTTPLimits: Sendable {
    /// The request line, CRLF included: a longer one is answered 414 (nginx's default
    /// `large_client_header_buffers` is 8 kB).
    var requestLine = 8 * 1024
    /// The whole head (request line and headers): a longer one is answered 431. This is
    /// also the most a connection ever buffers of a client's input.
    var head = 16 * 1024
    /// Header fields in one head: more is answered 431.
    var headerFields = 100
    /// From the first byte of a request to the end of its head; a client slower than
    /// that is dropped (nginx's `client_header_timeout`), also one that connects and sends nothing.
    var headSeconds = 10.0
    /// How long a keep-alive connection may wait idle for its next request.
    var idleSeconds = 20.0
    /// How long a response may make no progress (a client that does not read) before
    /// the connection is dropped and the body it pinned freed.
    var stalledWriteSeconds = 30.0
    /// Open client connections; beyond it new ones wait in the kernel's backlog (and are
    /// refused by the kernel when that is full too).
    var connections = 1024
    /// Requests of one connection answered before it is closed (a bound on how long one
    /// client keeps a worker's slot; clients reconnect).
    var requestsPerConnection = 10_000
    /// Responses queued ahead of the socket for pipelined requests before reading stops.
    var pipelinedResponses = 16
    /// On SIGTERM, how long responses in flight may take to finish.
    var drainSeconds = 10.0
}
