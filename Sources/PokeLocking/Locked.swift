import Foundation

/// A value reached only under a lock: what `Synchronization.Mutex` offers, without its
/// macOS 15 floor (the package declares macOS 14, which the reader library needs, and
/// SwiftPM cannot give one target a floor of its own). The one lock type of the package:
/// the crawler, the store, serve's HTTP layer and its body cache, and the reader apps
/// import (its connection pool and updater) all take it from here.
/// `Value` must be `Sendable`: what goes in under the lock is handed out to other threads.
///
/// On Linux the lock is glibc's adaptive mutex: a thread that finds it taken spins a
/// moment (about a hundred tries) before it sleeps in the kernel. The locks here are held
/// for well under a microsecond (serve's body cache on every request), so a waiter nearly
/// always gets the lock while spinning; with a plain mutex (`NSLock`) it slept at once, a
/// futex sleep and a wake a time (150 a second under wrk, each one a serve worker off its
/// core with every connection it holds, on a busy machine for milliseconds).
// @unchecked Sendable: `value` is read and written only inside `withLock`, while `lock` is held.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // Inlinable, so a caller in another module (serve's body cache, on every request)
    // gets `withLock` specialized for its value rather than a generic call.
    #if os(Linux)
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #else
    @usableFromInline let lock = NSLock()
    #endif
    @usableFromInline var value: Value

    package init(_ value: Value) {
        self.value = value
        #if os(Linux)
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        #endif
    }

    #if os(Linux)
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    #endif

    /// Runs `body` with the value, one caller at a time, and returns what it returns.
    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if os(Linux)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        #else
        lock.lock()
        defer { lock.unlock() }
        #endif
        return try body(&value)
    }
}
