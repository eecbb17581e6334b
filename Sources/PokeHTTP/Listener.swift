import Foundation

/// The listening socket and the thread that accepts on it, handing each connection to
/// the least loaded worker. At the connection cap an idle connection makes room; when none
/// is idle new clients wait in the kernel's backlog until a connection closes.
package final class Listener: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` is set once in init; the wake pipe is a pair of
    // descriptors any thread may write to; `run` is called on one thread only.
    let descriptor: Int32
    /// The address actually bound (the port filled in when 0 was asked).
    package let boundAddress: String
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Binds and listens on `host:port`.
    /// - Throws: `HTTPServerError.cannotListen` when the address does not resolve,
    ///   is in use or is not this host's.
    package init(host: String, port: Int, backlog: Int32 = 1024) throws(HTTPServerError) {
        let display = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Self.streamType
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found else {
            throw HTTPServerError.cannotListen(address: display, reason: String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(found) }
        let socketDescriptor = socket(first.pointee.ai_family, Self.streamType, 0)
        guard socketDescriptor >= 0 else { throw HTTPServerError.system("socket", errno) }
        var yes: Int32 = 1
        _ = setsockopt(socketDescriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(socketDescriptor, F_SETFD, FD_CLOEXEC)
        guard bind(socketDescriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0,
              listen(socketDescriptor, backlog) == 0 else {
            let code = errno
            close(socketDescriptor)
            throw HTTPServerError.cannotListen(address: display, reason: String(cString: strerror(code)))
        }
        _ = fcntl(socketDescriptor, F_SETFL, fcntl(socketDescriptor, F_GETFL) | O_NONBLOCK)
        descriptor = socketDescriptor
        boundAddress = Self.localAddress(socketDescriptor) ?? display
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw HTTPServerError.system("pipe", errno) }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    }

    #if os(Linux)
    static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    static let streamType = SOCK_STREAM
    #endif

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// `127.0.0.1:8080` or `[::1]:8080`: what the socket is bound to.
    private static func localAddress(_ descriptor: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard got == 0 else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let named = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                            NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard named == 0 else { return nil }
        let text = { (characters: [CChar]) in
            String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let hostText = text(host), portText = text(service)
        return hostText.contains(":") ? "[\(hostText)]:\(portText)" : "\(hostText):\(portText)"
    }

    /// Wakes `run` so it sees the stop flag.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Accepts until `gauge` says stop, then closes the listening socket. At the connection
    /// cap it asks the workers for room (an idle connection is closed) and waits for it;
    /// an address past its share is answered 503 and closed at once, and its line written
    /// to the access log as any answer's.
    func run(workers: [Worker], gauge: ConnectionGauge, configuration: HTTPServerConfiguration) {
        defer { close(descriptor) }
        let limits = configuration.limits
        var log = configuration.accessLog.map(AccessLogBuffer.init)
        while !gauge.isStopping {
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, 1000)
            if ready < 0 && errno != EINTR { usleep(10_000) }
            if descriptors[1].revents != 0 || gauge.isStopping { return }
            guard descriptors[0].revents != 0 else { continue }
            // A client waits and the server is full: room is made for it (one connection
            // closed per client waiting), then it is accepted.
            if gauge.askForRoom() {
                workers.forEach { $0.wake() }
                guard gauge.waitForRoom(seconds: 0.25) else { return }
                continue
            }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(descriptor, $0, &length) }
            }
            guard client >= 0 else {
                // Out of descriptors: leave the client in the backlog for a moment.
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM { usleep(50_000) }
                continue
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            var yes: Int32 = 1
            _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            // The kernel's share of what a client leaves unread (it would grow to tcp_wmem's 4 MB).
            var sendBuffer = Int32(clamping: limits.socketSendBuffer)
            _ = setsockopt(client, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
            _ = setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let address = Self.clientAddress(storage)
            guard gauge.take(address) else {
                let bodyBytes = Self.refuse(client, perAddress: gauge.perAddress, configuration: configuration)
                // No request was read: logged as a head the parser refused is, `"-"`.
                log?.append(address: address.description, request: nil, status: HTTPStatus.serviceUnavailable.code,
                            bodyBytes: bodyBytes, seconds: 0)
                log?.handOver(now: monotonicSeconds(), force: true)
                continue
            }
            let target = workers.min { $0.load.withLock { $0 } < $1.load.withLock { $0 } }!
            target.adopt(client, address: address)
        }
    }

    /// A 503 for a client whose address holds its share of connections, written into the
    /// new socket's empty send buffer (it fits), then closed; returns the body's length.
    private static func refuse(_ client: Int32, perAddress: Int, configuration: HTTPServerConfiguration) -> Int {
        let reply = configuration.refusal(.serviceUnavailable, "Too many connections from this address (at most \(perAddress)).",
                                          headers: [("Retry-After", "1")])
        var date = HTTPDate()
        let head = reply.head(keepAlive: false, date: String(decoding: date.now(), as: UTF8.self),
                              defaults: configuration.defaultHeaders, server: configuration.serverName, memory: configuration.memory)
        var vectors = [iovec(iov_base: head.base, iov_len: head.count), iovec(iov_base: reply.body.base, iov_len: reply.body.count)]
        _ = writev(client, &vectors, 2)
        shutdown(client, Int32(SHUT_WR))
        close(client)
        return reply.body.count
    }

    /// The address a connection comes from, as the gauge counts it.
    static func clientAddress(_ storage: sockaddr_storage) -> ClientAddress {
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { raw -> ClientAddress in
            switch family {
            case AF_INET:
                let offset = MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!
                var low: UInt64 = 0
                for index in 0 ..< 4 { low = low << 8 | UInt64(raw[offset + index]) }
                // Held as ::ffff:a.b.c.d, the form an IPv6 socket gives the same client,
                // so both count as one address and no IPv6 address (::a.b.c.d) looks like it.
                return ClientAddress(high: 0, low: 0xFFFF_0000_0000 | low)
            case AF_INET6:
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
                var high: UInt64 = 0, low: UInt64 = 0
                for index in 0 ..< 8 {
                    high = high << 8 | UInt64(raw[offset + index])
                    low = low << 8 | UInt64(raw[offset + 8 + index])
                }
                return ClientAddress(high: high, low: low)
            default:
                return ClientAddress(high: .max, low: .max)
            }
        }
    }
}
