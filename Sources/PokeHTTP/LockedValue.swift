import Foundation

/// A value reached only under a lock. The HTTP layer's own, so that it depends on nothing
/// of the mirror (the mirror has the same small class); no `Synchronization.Mutex`, whose
/// macOS 15 floor is above the package's.
// @unchecked Sendable: `value` is read and written only inside `withLock`, while `lock` is held.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, one caller at a time, and returns what it returns.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
