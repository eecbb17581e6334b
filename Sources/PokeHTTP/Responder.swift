/// Answers one parsed request. One per worker thread, used by that thread only, so it
/// may keep per-thread state (what it last saw of the store).
package protocol Responder: AnyObject {
    /// The answer to `request`: a reply ready now, or the work that makes it, for the
    /// server's render threads (``Answer``).
    func answer(_ request: RequestHead) -> Answer
}

/// What a responder gives for a request.
///
/// A worker thread serves every connection it holds, one after the other: work of a
/// millisecond or more on it (a large document read, rendered and gzip'd) makes each of
/// those connections wait. Such work is handed back as `deferred`: it runs on the
/// server's render threads while the worker goes on with the others, and its reply is
/// written when it is done, in its place among the connection's replies (the connection
/// answers nothing after it meanwhile).
package enum Answer {
    /// The reply, made on the worker's thread.
    case ready(Reply)
    /// Runs on a render thread (any thread: it may use only what is `Sendable`).
    case deferred(@Sendable () -> Reply)

    /// The reply, made here when deferred (what a caller outside a server, a test, uses).
    package func reply() -> Reply {
        switch self {
        case .ready(let reply): return reply
        case .deferred(let make): return make()
        }
    }
}

extension Answer {
    /// This answer with its reply counted under `route` (``Reply/route``), moved rather
    /// than copied.
    package consuming func routed(_ route: StaticString) -> Answer {
        switch consume self {
        case .ready(var reply):
            reply.route = route
            return .ready(reply)
        case .deferred(let make):
            return .deferred {
                var reply = make()
                reply.route = route
                return reply
            }
        }
    }
}

extension Responder {
    /// The reply to `request`, made on the calling thread whatever the answer's kind.
    package func respond(to request: RequestHead) -> Reply { answer(request).reply() }
}
