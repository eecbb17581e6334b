import Foundation

/// A value reached only under a lock: what `Synchronization.Mutex` offers, without its
/// macOS 15 floor (the package declares macOS 14, which the reader library needs, and
/// SwiftPM cannot give the crawler a floor of its own).
// @unchecked Sendable: `value` is read and written only inside `withLock`, while `lock` is held.
package final class Locked<Value>: @unchecked Sendable {
    // Inlinable, so a caller in another module (serve's body cache, on every request)
    // gets `withLock` specialized for its value rather than a generic call.
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, one caller at a time, and returns what it returns.
    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
