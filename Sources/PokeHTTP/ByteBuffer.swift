import Foundation

/// Bytes that never change once made, at an address that never moves: what a response
/// body or head is while `writev` sends it in pieces, possibly over many wake-ups.
///
/// A cached body is shared by every connection sending it; it is freed when the cache
/// has dropped it and the last connection has finished with it. Its bytes are counted in
/// the ``MemoryBudget`` it was made against while it lives.
// @unchecked Sendable: the memory is written only in `init`, before the buffer is shared,
// and only read afterwards; `deinit` runs when no one holds it any more.
package final class ByteBuffer: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    package let count: Int
    private let memory: MemoryBudget

    /// A copy of `bytes`, counted in `memory` until freed.
    package init(_ bytes: some Collection<UInt8>, countedIn memory: MemoryBudget) {
        count = bytes.count
        self.memory = memory
        base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        // One memcpy for contiguous bytes (an array: every body). Callers are in other
        // modules, where this generic init runs unspecialized: the element-by-element copy
        // below costs a witness call a byte (about 2.5 ms more for each body a fresh start
        // renders, its worker's other connections waiting meanwhile).
        let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
            if let address = source.baseAddress { base.copyMemory(from: address, byteCount: source.count) }
        }
        if copied == nil {
            _ = UnsafeMutableRawBufferPointer(start: base, count: count).initializeMemory(as: UInt8.self, from: bytes)
        }
        memory.add(count)
    }

    deinit {
        base.deallocate()
        memory.add(-count)
    }

    /// No bytes (a reply without a body); counted in a budget of its own, which nobody reads.
    package static let empty = ByteBuffer([], countedIn: MemoryBudget())

    /// Calls `body` with the bytes (valid only inside it).
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// A copy as an array (tests, hashing).
    var bytes: [UInt8] { [UInt8](UnsafeRawBufferPointer(start: base, count: count)) }
}
