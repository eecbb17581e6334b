import Foundation
import PokeLocking
import PokeSQLite
import PokeSyncCore

/// The version being served, shared by the workers. A worker that sees the store change
/// (``Store``'s `PRAGMA data_version`, a few microseconds a request) asks the board to
/// look for a newer published version; one worker loads it, the others wait for it.
final class VersionBoard: Sendable {
    /// The version served, and the store generation (``StoreKeeper``) it was loaded from.
    private let current = Locked<(version: ServedVersion, generation: Int, published: Date?)?>(nil)
    private let loading = Locked(())

    var version: ServedVersion? { current.withLock { $0?.version } }
    /// The served version's number and when it was published (the store's record of it).
    var served: (number: Int, published: Date?)? { current.withLock { $0.map { ($0.version.number, $0.published) } } }

    /// The latest published version as `store` (of `generation`) sees it, loaded when it is
    /// not the one served, or was loaded from another store file (a restore may hold
    /// another version under the same number).
    /// - Throws: `RequestError.noVersions` when none is published; store errors.
    func refresh(store: Store, generation: Int) throws -> ServedVersion {
        try loading.withLock { _ in
            try store.snapshot {
                guard let latest = try store.latestVersion() else { throw RequestError.noVersions }
                if let served = current.withLock({ $0 }), served.version.number == latest.number,
                   served.generation == generation {
                    return served.version
                }
                let loaded = try ServedVersion.load(store: store, version: latest.number)
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime]
                current.withLock { $0 = (loaded, generation, formatter.date(from: latest.createdAt)) }
                return loaded
            }
        }
    }
}

extension Store {
    /// SQLite's count of commits by other connections: it changes when a `sync`
    /// publishes or a `prune` runs, and costs no I/O to ask.
    func dataVersion() throws -> Int {
        try read { try $0.integer("PRAGMA data_version") ?? 0 }
    }

    /// The newest published version's number, or nil.
    func latestVersionNumber() throws -> Int? {
        try read { try Store.newestVersionNumber($0) }
    }

    /// True when version `number` is still retained (inside a snapshot: and stays so for it).
    func retains(version number: Int) throws -> Bool {
        try read { try $0.integer("SELECT COUNT(*) FROM versions WHERE number = ?", [SQLValue(number)]) == 1 }
    }
}
