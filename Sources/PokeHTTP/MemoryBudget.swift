import CPoll

/// The bytes of ``ByteBuffer``s alive that were made against this budget: cached bodies,
/// and bodies and heads that connections are still writing (a body dropped from a cache
/// lives on until its last write ends). The application makes one, counts its bodies in
/// it, and gives it to its servers (``HTTPServerConfiguration/memory``), which count their
/// heads in it and shed stalled connections past ``HTTPLimits/shedBytes``; the application
/// reads ``liveBytes`` before making a new body.
///
/// Each buffer adds its size once when made and takes it off once when freed, with one
/// atomic instruction each (no lock: the count orders nothing else).
// @unchecked Sendable: `counter` is only touched through the atomic builtins.
package final class MemoryBudget: @unchecked Sendable {
    private let counter: UnsafeMutablePointer<Int>

    package init() {
        counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        counter.initialize(to: 0)
    }

    deinit { counter.deallocate() }

    /// Bytes of the buffers alive made against this budget (any thread).
    package var liveBytes: Int { cpoll_counter_load(counter) }

    func add(_ bytes: Int) { _ = cpoll_counter_add(counter, bytes) }
}
