import Foundation
import PokeLocking

/// A serving process's standard output and error, which may go away under it (a closed
/// descriptor, `>&-`; a pipe whose reader left, `| head -1`, or never read, `| true`) or
/// stall (a pipe nobody reads, a terminal on hold). What cannot be written is lost and the
/// server goes on: a write never traps (as `FileHandle.write` does on EPIPE or EBADF), nor
/// raises SIGPIPE once it is ignored, and once ``prepare(ignoring:)`` ran, never waits on a
/// reader: it is queued for a writer thread (``QueuedOutput``), dropped past 64 kB waiting.
///
/// The application says which signals the process ignores (``prepare(ignoring:)``): a
/// server's process ignores SIGPIPE (a closed pipe or socket is then an error to a write),
/// and SIGXFSZ where an access log past the file-size limit (`ulimit -f`) should fail its
/// writes with EFBIG, dropping and counting lines as a full disk does.
package enum StandardStreams {
    /// Run before anything is written or opened: `signals` ignored (SIGPIPE, so that a
    /// closed pipe is an error to a write, not the end; a signal a ``ServerSignals`` will
    /// catch, so that one sent at start never stops the process), and descriptors 0, 1 and
    /// 2 held open, on /dev/null where they were closed, so that no store, log or socket
    /// opened later takes a standard number and receives what is written to standard output.
    /// From then on, standard output and error are written through queues (see above).
    package static func prepare(ignoring signals: [Int32]) {
        for number in signals { signal(number, SIG_IGN) }
        queued.withLock { $0 = true }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) < 0 {
            // The lowest free number: `descriptor` itself, the lower ones being open.
            let null = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != descriptor {
                _ = dup2(null, descriptor)
                close(null)
            }
        }
    }

    /// Whether writes to standard output and error are queued (a server's process).
    private static let queued = Locked(false)
    /// The queues of standard output and error, used once ``prepare(ignoring:)`` ran.
    static let outputQueue = QueuedOutput(STDOUT_FILENO)
    static let errorQueue = QueuedOutput(STDERR_FILENO)

    /// Writes `text` whole to standard error (or `descriptor`); false when it could not be
    /// (the reader left, the descriptor is closed), which nobody needs to act on. In a
    /// server's process (``prepare(ignoring:)``), standard output and error are only queued:
    /// false when the queue was full and the text dropped.
    @discardableResult
    package static func write(_ text: String, to descriptor: Int32 = STDERR_FILENO) -> Bool {
        if descriptor == STDOUT_FILENO || descriptor == STDERR_FILENO, queued.withLock({ $0 }) {
            return (descriptor == STDOUT_FILENO ? outputQueue : errorQueue).append(text)
        }
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
    }

    /// Writes `text` whole to standard output, unbuffered (scripts wait for serve's lines).
    @discardableResult
    package static func output(_ text: String) -> Bool { write(text, to: STDOUT_FILENO) }

    /// Waits until what was queued for standard output and error is written, at most
    /// `seconds` in all (the process then exits, leaving the rest to a reader that stalled);
    /// at once when nothing is queued (not a server's process).
    package static func finish(within seconds: Double) {
        let until = monotonicSeconds() + seconds
        outputQueue.waitWritten(within: seconds)
        errorQueue.waitWritten(within: max(0, until - monotonicSeconds()))
    }
}
