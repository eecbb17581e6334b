import Foundation
import PokeSQLite

/// An installed Pokedex: the device database (`pokedex.sqlite`) and its sprites, read-only.
///
/// Open it once and share it: every method may be called from any thread or task. Each
/// answer is a `Sendable` value that stays valid after the `Pokedex` is gone.
///
/// ```swift
/// let pokedex = try Pokedex(folder: appSupport.appendingPathComponent("Pokedex"))
/// let page = try pokedex.list(offset: 0, limit: 20, sortedBy: .type)
/// let pikachu = try pokedex.pokemon(named: "pikachu")
/// let hits = try pokedex.search("fire dragon")
/// ```
///
/// Opening is cheap: it reads `meta.schema_version` and nothing else. The search
/// strings are loaded on the first search (or ``prepareSearch()``).
// @unchecked Sendable: the only mutable state is the SQLite connection (with its statement
// cache) and the lazily built search index; both are reached only while `lock` is held.
// The connection is opened with SQLITE_OPEN_NOMUTEX, so this lock is what serializes it.
// NSLock rather than Synchronization.Mutex: the library must build for iOS 17 / macOS 14.
public final class Pokedex: @unchecked Sendable {
    /// The database file.
    public let databaseURL: URL
    /// The folder sprite paths are relative to (the database's folder: `DIR/current`).
    public let spritesBaseURL: URL
    /// `meta.schema_version` as the database states it.
    public let schemaVersion: String

    private let lock = NSLock()
    private let database: Database
    private var searchIndex: SearchIndex?

    /// Opens an installed device folder: `folder/current/pokedex.sqlite`.
    /// - Throws: ``PokedexError`` when the folder holds no database, the file cannot be
    ///   opened, is not a Pokedex database, or has a newer major schema version.
    public convenience init(folder: URL) throws {
        let current = folder.appendingPathComponent("current", isDirectory: true)
        try self.init(databaseAt: current.appendingPathComponent("pokedex.sqlite"))
    }

    /// Opens a device database file directly (an unpacked bundle, a test database).
    /// Sprite paths resolve against the file's folder.
    /// - Throws: ``PokedexError`` when there is no such file, it cannot be opened, is not
    ///   a Pokedex database, or has a newer major schema version.
    public init(databaseAt url: URL) throws {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { throw PokedexError.missingDatabase(path: path) }
        let database: Database
        do {
            // immutable=1: a current database is never changed, so SQLite may skip locking
            // and never needs a -journal, -wal or -shm beside it (read-only media works).
            database = try Database(path: path, mode: .immutable)
        } catch {
            throw PokedexError.cannotOpen(path: path, reason: error.message)
        }
        self.database = database
        self.databaseURL = url
        self.spritesBaseURL = url.deletingLastPathComponent()
        self.schemaVersion = try Self.checkSchema(database, path: path)
    }

    /// Reads `meta.schema_version` and refuses a newer major version than ``DeviceSchema/version``.
    private static func checkSchema(_ database: Database, path: String) throws -> String {
        let found: String?
        do {
            found = try database.row("SELECT value FROM meta WHERE key = ?", [.text(DeviceSchema.MetaKey.schemaVersion)]) {
                $0.optionalText(0)
            } ?? nil
        } catch let error as DatabaseError {
            throw PokedexError.notAPokedex(path: path, reason: error.isCorruption ? error.message : "no meta table")
        }
        guard let found else { throw PokedexError.notAPokedex(path: path, reason: "meta has no schema_version") }
        // "1" or "1.2": the major version is what breaks readers.
        guard let major = Int(found.split(separator: ".").first ?? "") else {
            throw PokedexError.notAPokedex(path: path, reason: "schema_version \"\(found)\" is not a version number")
        }
        if major > DeviceSchema.version {
            throw PokedexError.newerSchema(path: path, found: found, supported: DeviceSchema.version)
        }
        return found
    }

    /// The file URL of a sprite path from the database (`sprites/pokemon/25.png`).
    public func fileURL(forSpritePath path: String) -> URL {
        spritesBaseURL.appendingPathComponent(path, isDirectory: false)
    }

    /// A value of `meta` (`version`, `lineage`, `profile`, ...), or nil when absent.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when the query fails.
    public func metaValue(_ key: String) throws -> String? {
        try read { database in
            try database.row("SELECT value FROM meta WHERE key = ?", [.text(key)]) { $0.optionalText(0) } ?? nil
        }
    }

    /// Runs `body` with the connection, one caller at a time; SQLite errors become
    /// ``PokedexError`` values naming the file.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try body(database)
        } catch let error as DatabaseError {
            throw PokedexError.reading(error, path: databaseURL.path)
        }
    }

    /// The search index, built on first use under the lock, then shared read-only.
    func loadedSearchIndex() throws -> SearchIndex {
        try read { database in
            if let searchIndex { return searchIndex }
            let index = try SearchIndex.load(from: database)
            searchIndex = index
            return index
        }
    }
}
