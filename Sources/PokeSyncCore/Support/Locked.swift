import Foundation

/// A value reached only under a lock: what `Synchronization.Mutex` offers, without its
/// macOS 15 floor (the package declares macOS 14, which the reader library needs, and
/// SwiftPM cannot give the crawler a floor of its own).
// @unchecked Sendable: `value` is read and written only inside `withLock`, while `lock` is held.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, one caller at a time, and returns what it returns.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
