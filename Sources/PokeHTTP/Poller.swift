#if canImport(Glibc)
import CPoll
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a worker waits for on one descriptor.
enum PollInterest {
    case read, write
    /// Neither: a connection waiting for a reply made elsewhere. Only a hang-up or an
    /// error is reported (as readable), which the kernel always reports.
    case none
}

/// One readiness event: the descriptor, and whether it can be read (or was hung up:
/// the read then says how) or written.
struct PollEvent {
    var descriptor: Int32
    var readable: Bool
    var writable: Bool
}

#if os(Linux)
/// Readiness of a worker's sockets through epoll (level-triggered): one poller per
/// worker thread, used by that thread only.
final class Poller {
    private let epoll: Int32
    private var events = [epoll_event](repeating: epoll_event(), count: 64)

    init() throws(HTTPServerError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw HTTPServerError.system("epoll_create1", errno) }
    }

    deinit { close(epoll) }

    private func mask(_ interest: PollInterest) -> UInt32 {
        switch interest {
        case .read: return EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        case .write: return EPOLLOUT.rawValue
        case .none: return 0
        }
    }

    func add(_ descriptor: Int32, _ interest: PollInterest) -> Bool {
        var event = epoll_event()
        event.events = mask(interest)
        event.data.fd = descriptor
        return epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0
    }

    func change(_ descriptor: Int32, _ interest: PollInterest) {
        var event = epoll_event()
        event.events = mask(interest)
        event.data.fd = descriptor
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
    }

    func remove(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
    }

    /// Waits up to `milliseconds` and calls `body` for each ready descriptor; returns how
    /// many there were.
    func wait(milliseconds: Int32, _ body: (PollEvent) -> Void) -> Int {
        let count = events.withUnsafeMutableBufferPointer { buffer in
            epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), milliseconds)
        }
        guard count > 0 else { return 0 }
        let hangup = EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue
        for index in 0 ..< Int(count) {
            let event = events[index]
            body(PollEvent(descriptor: event.data.fd,
                           readable: event.events & (EPOLLIN.rawValue | hangup) != 0,
                           writable: event.events & (EPOLLOUT.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0))
        }
        return Int(count)
    }
}
#else
/// Readiness through poll(2) where there is no epoll (Apple platforms): the same
/// contract, linear in the worker's connections, which is fine below a few thousand.
final class Poller {
    private var interests: [Int32: PollInterest] = [:]

    init() throws(HTTPServerError) {}

    func add(_ descriptor: Int32, _ interest: PollInterest) -> Bool { interests[descriptor] = interest; return true }
    func change(_ descriptor: Int32, _ interest: PollInterest) { interests[descriptor] = interest }
    func remove(_ descriptor: Int32) { interests[descriptor] = nil }

    func wait(milliseconds: Int32, _ body: (PollEvent) -> Void) -> Int {
        var descriptors = interests.map { descriptor, interest in
            pollfd(fd: descriptor, events: Int16(interest == .read ? POLLIN : interest == .write ? POLLOUT : 0), revents: 0)
        }
        let count = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), milliseconds) }
        guard count > 0 else { return 0 }
        for entry in descriptors where entry.revents != 0 {
            let hangup = Int16(POLLHUP | POLLERR)
            body(PollEvent(descriptor: entry.fd, readable: entry.revents & (Int16(POLLIN) | hangup) != 0,
                           writable: entry.revents & (Int16(POLLOUT) | hangup) != 0))
        }
        return Int(count)
    }
}
#endif
