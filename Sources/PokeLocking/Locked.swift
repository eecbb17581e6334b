import Foundation

/// A value reached only under a lock: what `Synchronization.Mutex` offers, without its
/// macOS 15 floor (the package declares macOS 14, which the reader library needs, and
/// SwiftPM cannot give one target a floor of its own). The one lock type of the package:
/// the crawler, the store, serve's HTTP layer and its body cache, and the reader apps
/// import (its connection pool and updater) all take it from here.
/// `Value` must be `Sendable`: what goes in under the lock is handed out to other threads.
// @unchecked Sendable: `value` is read and written only inside `withLock`, while `lock` is held.
package final class Locked<Value: Sendable>: @unchecked Sendable {
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
