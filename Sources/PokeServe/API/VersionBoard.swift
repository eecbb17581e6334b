import PokeSQLite
import PokeSyncCore

/// The version being served, shared by the workers. A worker that sees the store change
/// (``Store``'s `PRAGMA data_version`, a few microseconds a request) asks the board to
/// look for a newer published version; one worker loads it, the others wait for it.
final class VersionBoard: Sendable {
    private let current = Locked<ServedVersion?>(nil)
    private let loading = Locked(())

    var version: ServedVersion? { current.withLock { $0 } }

    /// The latest published version as `store` sees it, loaded when it is not the one
    /// served; `force` looks even when the served one seems current.
    /// - Throws: `RequestError.noVersions` when none is published; store errors.
    func refresh(store: Store) throws -> ServedVersion {
        try loading.withLock { _ in
            try store.snapshot {
                guard let latest = try store.latestVersion() else { throw RequestError.noVersions }
                if let served = version, served.number == latest.number { return served }
                let loaded = try ServedVersion.load(store: store, version: latest.number)
                current.withLock { $0 = loaded }
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
        try read { try $0.integer("SELECT MAX(number) FROM versions") }
    }

    /// True when version `number` is still retained (inside a snapshot: and stays so for it).
    func retains(version number: Int) throws -> Bool {
        try read { try $0.integer("SELECT COUNT(*) FROM versions WHERE number = ?", [SQLValue(number)]) == 1 }
    }
}
