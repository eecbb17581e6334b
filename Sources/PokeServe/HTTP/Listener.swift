import Foundation

/// The listening socket and the thread that accepts on it, handing each connection to
/// the least loaded worker. At the connection cap it stops accepting: new clients wait
/// in the kernel's backlog until a connection closes.
final class Listener: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` is set once in init; the wake pipe is a pair of
    // descriptors any thread may write to; `run` is called on one thread only.
    let descriptor: Int32
    /// The address actually bound (the port filled in when 0 was asked).
    let boundAddress: String
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Binds and listens on `host:port`.
    /// - Throws: `ServeError.cannotListen` (exit 69) when the address does not resolve,
    ///   is in use or is not this host's.
    init(host: String, port: Int, backlog: Int32 = 1024) throws(ServeError) {
        let display = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Self.streamType
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found else {
            throw ServeError.cannotListen(address: display, reason: String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(found) }
        let socketDescriptor = socket(first.pointee.ai_family, Self.streamType, 0)
        guard socketDescriptor >= 0 else { throw ServeError.system("socket", errno) }
        var yes: Int32 = 1
        _ = setsockopt(socketDescriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(socketDescriptor, F_SETFD, FD_CLOEXEC)
        guard bind(socketDescriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0,
              listen(socketDescriptor, backlog) == 0 else {
            let code = errno
            close(socketDescriptor)
            throw ServeError.cannotListen(address: display, reason: String(cString: strerror(code)))
        }
        _ = fcntl(socketDescriptor, F_SETFL, fcntl(socketDescriptor, F_GETFL) | O_NONBLOCK)
        descriptor = socketDescriptor
        boundAddress = Self.localAddress(socketDescriptor) ?? display
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ServeError.system("pipe", errno) }
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

    /// Accepts until `gauge` says stop, then closes the listening socket.
    func run(workers: [Worker], gauge: ConnectionGauge) {
        defer { close(descriptor) }
        while gauge.waitForRoom() {
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, 1000)
            if ready < 0 && errno != EINTR { usleep(10_000) }
            if descriptors[1].revents != 0 || gauge.isStopping { return }
            guard descriptors[0].revents != 0 else { continue }
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else {
                // Out of descriptors: leave the client in the backlog for a moment.
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM { usleep(50_000) }
                continue
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            var yes: Int32 = 1
            _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
            _ = setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            gauge.take()
            let target = workers.min { $0.load.withLock { $0 } < $1.load.withLock { $0 } }!
            target.adopt(client)
        }
    }
}
