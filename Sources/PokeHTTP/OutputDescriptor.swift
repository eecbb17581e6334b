import Foundation

/// A descriptor a server writes its lines to without ever waiting on a reader: a write
/// takes what the pipe, terminal or socket has room for now (-1 and EAGAIN when none), and
/// ``waitWritable(within:)`` waits for room at most as long as its caller allows. So a
/// thread writing serve's outputs is never held by a reader that stalled, and can always
/// say which lines went out and which were dropped.
///
/// Standard output and error are shared with other processes (the shell, a pipeline), so
/// their file status flags (`O_NONBLOCK`) are never changed: a pipe, FIFO or terminal is
/// opened again through `/proc/self/fd` (Linux), a description of our own that may be
/// non-blocking; a socket (systemd's journal) is written with `MSG_DONTWAIT`. A regular file
/// has no reader to wait on and is written as it is. Where the open is refused (another
/// user's pipe or terminal: `sudo -u` in a pipeline) or there is no `/proc` (not Linux),
/// the descriptor is written as it is: its writes may wait, in the writer thread only,
/// which a stopping server then gives up on.
package struct OutputDescriptor: Sendable {
    /// The descriptor written to.
    package let number: Int32
    /// Whether `number` is ours to close (a description opened again).
    private let owned: Bool
    private let isSocket: Bool

    /// A file this process opened itself (its description its own): made non-blocking.
    package init(opened descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        number = descriptor
        owned = true
        isSocket = false
    }

    private init(number: Int32, owned: Bool, isSocket: Bool) {
        self.number = number
        self.owned = owned
        self.isSocket = isSocket
    }

    /// Standard output or error (`descriptor`), for writes that never wait on its reader.
    package static func standard(_ descriptor: Int32) -> OutputDescriptor {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return OutputDescriptor(number: descriptor, owned: false, isSocket: false) }
        let type = info.st_mode & S_IFMT
        if type == S_IFSOCK { return OutputDescriptor(number: descriptor, owned: false, isSocket: true) }
        #if os(Linux)
        if type == S_IFIFO || type == S_IFCHR {
            // A pipe whose reader left cannot be opened again (ENXIO): written as it is,
            // where a write fails with EPIPE at once.
            let again = open("/proc/self/fd/\(descriptor)", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            if again >= 0 { return OutputDescriptor(number: again, owned: true, isSocket: false) }
        }
        #endif
        return OutputDescriptor(number: descriptor, owned: false, isSocket: false)
    }

    /// Writes what the output takes now, as write(2): a count, or -1 with `errno` (EAGAIN
    /// when it has no room).
    package func write(_ bytes: UnsafeRawPointer, count: Int) -> Int {
        #if os(Linux)
        if isSocket { return send(number, bytes, count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        #else
        if isSocket { return send(number, bytes, count, MSG_DONTWAIT) }
        #endif
        return Foundation.write(number, bytes, count)
    }

    /// Waits until the output has room, at most `seconds`; false when it still has none.
    package func waitWritable(within seconds: Double) -> Bool {
        var entry = pollfd(fd: number, events: Int16(POLLOUT), revents: 0)
        // An error or a hang-up is "ready" too: the next write says what it is.
        return poll(&entry, 1, Int32(max(0, seconds * 1000))) > 0
    }

    /// Closes the description when it is ours; a standard descriptor stays open.
    package func close() {
        if owned { _ = Foundation.close(number) }
    }
}
