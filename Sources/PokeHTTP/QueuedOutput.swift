import Foundation

/// A server's own lines on standard output or error (its start line, its reports, its
/// last line), written by a thread of their own so that no thread that serves, counts or
/// stops ever waits on the stream's reader: a pipe nobody reads, a terminal on hold, a
/// journal that fell behind. Writing only queues the text (at most `bound` bytes wait);
/// past that, a text is dropped whole and counted in ``droppedTexts``. The queue is
/// written in order through an ``OutputDescriptor``; what the stream refuses (its reader
/// left) is lost, and the writer goes on with the next text.
final class QueuedOutput: @unchecked Sendable {
    // @unchecked Sendable: `queue`, `writing`, `started` and `dropped` are touched only
    // with `condition` locked; `output` only by the writer thread.
    private let condition = NSCondition()
    private let standard: Int32
    private var queue: [UInt8] = []
    /// The writer holds bytes taken from the queue that are not written yet.
    private var writing = false
    private var started = false
    private var dropped = 0
    /// Bytes waiting for the writer; a text that would pass it is dropped.
    static let bound = 64 << 10

    /// The queue of standard output or error (`standard`); its writer starts with the first text.
    init(_ standard: Int32) {
        self.standard = standard
    }

    /// Texts dropped because the queue was full.
    var droppedTexts: Int { condition.lock(); defer { condition.unlock() }; return dropped }

    /// Queues `text` (any thread, never waits); false when it was dropped.
    @discardableResult
    func append(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        condition.lock()
        defer { condition.unlock() }
        guard queue.count + bytes.count <= Self.bound else {
            dropped += 1
            return false
        }
        queue += bytes
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = standard == STDOUT_FILENO ? "stdout-writer" : "stderr-writer"
            thread.start()
        }
        condition.signal()
        return true
    }

    /// Waits until everything queued so far is written (or lost to a reader that left), at
    /// most `seconds`; false when some is still waiting for the reader.
    @discardableResult
    func waitWritten(within seconds: Double) -> Bool {
        let until = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !queue.isEmpty || writing {
            guard condition.wait(until: until) else { return queue.isEmpty && !writing }
        }
        return true
    }

    private func run() {
        let output = OutputDescriptor.standard(standard)
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let bytes = queue
            queue.removeAll(keepingCapacity: true)
            writing = true
            condition.unlock()
            write(bytes, to: output)
            condition.lock()
            writing = false
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Writes `bytes` whole, waiting for room as long as it takes (this thread only); stops
    /// at an error (the reader left, the descriptor is closed): the rest is lost.
    private func write(_ bytes: [UInt8], to output: OutputDescriptor) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { output.write($0.baseAddress! + offset, count: $0.count - offset) }
            if count > 0 {
                offset += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                _ = output.waitWritable(within: 60)
            } else if !(count < 0 && errno == EINTR) {
                return
            }
        }
    }
}
