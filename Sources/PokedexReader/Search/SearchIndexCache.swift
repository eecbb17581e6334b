import Foundation

/// The lazily loaded ``SearchIndex`` of one database, guarded on its own so that loading
/// it never holds up other reads.
///
/// One caller loads; others that hold no connection wait for it. A caller that holds a
/// connection (inside an async ``Pokedex/read(_:)``) never waits: the loader may itself be
/// waiting for that connection. It loads too, and the first index stored wins (a rare
/// duplicate load rather than a deadlock).
// NSCondition, not Locked: a caller that holds no connection waits for the loader, which
// a lock cannot do.
// @unchecked Sendable: `index` and `loading` are reached only while `condition` is locked;
// the index itself is immutable and Sendable.
final class SearchIndexCache: @unchecked Sendable {
    private let condition = NSCondition()
    private var index: SearchIndex?
    private var loading = false

    /// The index, loading it with `load` when no one has.
    func index(waiting: Bool, load: () throws -> SearchIndex) throws -> SearchIndex {
        condition.lock()
        while true {
            if let index {
                condition.unlock()
                return index
            }
            if loading && waiting {
                condition.wait()
                continue
            }
            break
        }
        loading = true
        condition.unlock()
        let loaded: SearchIndex
        do {
            loaded = try load()
        } catch {
            condition.lock()
            loading = false
            condition.broadcast()
            condition.unlock()
            throw error
        }
        condition.lock()
        defer { condition.unlock() }
        if index == nil { index = loaded }
        loading = false
        condition.broadcast()
        return index ?? loaded
    }
}
