import Foundation
import PokeSQLite

/// An installed Pokedex: the device database (`pokedex.sqlite`) and its sprites, read-only.
///
/// Open it once and share it: every method may be called from any thread or task. Each
/// answer is a `Sendable` value that stays valid after the `Pokedex` is gone.
///
/// ```swift
/// let pokedex = try Pokedex(folder: appSupport.appendingPathComponent("Pokedex"), languages: ["fr"])
/// let page = try pokedex.list(offset: 0, limit: 20, sortedBy: .type)  // each row's localizedName in French
/// let pikachu = try pokedex.pokemon(named: "pikachu")
/// let hits = try pokedex.search("fire dragon")
/// ```
///
/// Opening is cheap: it reads `meta.schema_version` and checks, in one query, that the
/// file has every table and column `DeviceSchema` declares. Each model is read by an
/// initializer that reads its columns by name with the type it needs: a NULL where a
/// value is needed, or a value of another storage class, is a ``PokedexError`` naming
/// the table, the column and the row. The search strings are loaded on the first search
/// (or ``prepareSearch()``).
///
/// The methods block their thread while SQLite reads (well under a millisecond to a few
/// ms each). Calls from many threads run side by side on a small pool of read-only
/// connections (one per core, 2 to 8, opened as needed). From async code, prefer
/// ``read(_:)``, which runs a batch of queries off the caller's actor on a
/// ``PokedexConnection`` and can be cancelled:
///
/// ```swift
/// let pikachu = try await pokedex.read { try $0.pokemon(named: "pikachu") }
/// ```
///
/// The `Pokedex` reads the version `DIR/current` pointed at when it opened, even after an
/// update moves `current` (or deletes that version's folder): ``needsReopen`` says when
/// to call ``reopened()``.
///
/// `Sendable`: every stored property is a constant. The mutable state lives in
/// `ConnectionPool` and `ReadBinding` (each behind its lock) and `SearchIndexCache`
/// (behind its NSCondition), each justified where it is declared.
public final class Pokedex: Sendable {
    /// The database file as asked for (`DIR/current/pokedex.sqlite` for a device folder).
    public let databaseURL: URL
    /// The folder sprite paths are relative to: the folder of the file opened
    /// (``openedDatabaseURL``: `DIR/versions/7`, not `DIR/current`), so that after an update
    /// this `Pokedex`'s sprites stay those of the version its rows are from.
    public let spritesBaseURL: URL
    /// `meta.schema_version` as the database states it.
    public let schemaVersion: String
    /// The file actually opened: ``databaseURL`` with its links resolved once, at open
    /// (`DIR/versions/7/pokedex.sqlite`). Every connection of this `Pokedex` reads it.
    public let openedDatabaseURL: URL
    /// The languages localized texts are chosen from, best first (API codes: `fr`, `ja-hrkt`),
    /// English after them: given once, when the `Pokedex` opens. A call that takes
    /// `languages` may pass its own; nil there means these.
    public let languages: [String]

    let pool: ConnectionPool
    let searchCache: SearchIndexCache
    /// Set on the `Pokedex` handed to an async ``read(_:)``'s closure: its connection and
    /// cancellation. Nil on the `Pokedex` an app opens.
    let binding: ReadBinding?

    /// Opens an installed device folder: `folder/current/pokedex.sqlite`, with localized
    /// texts in the first of `languages` the data has, else English.
    /// - Throws: ``PokedexError`` when the folder holds no database, the file cannot be
    ///   opened, is not a Pokedex database, lacks a table or column its schema declares, or
    ///   has a newer major schema version.
    public convenience init(folder: URL, languages: [String] = PreferredLanguages.system) throws {
        let current = folder.appendingPathComponent("current", isDirectory: true)
        try self.init(databaseAt: current.appendingPathComponent("pokedex.sqlite"), languages: languages)
    }

    /// Opens a device database file directly (an unpacked bundle, a test database).
    /// Sprite paths resolve against the file's folder.
    /// - Throws: ``PokedexError`` when there is no such file, it cannot be opened, is not
    ///   a Pokedex database, lacks a table or column its schema declares, or has a newer
    ///   major schema version.
    public convenience init(databaseAt url: URL, languages: [String] = PreferredLanguages.system) throws {
        try self.init(databaseAt: url, languages: languages, maximumConnections: nil)
    }

    /// ``init(databaseAt:languages:)`` with the pool's size chosen (tests pin it; nil: one per core, 2 to 8).
    convenience init(databaseAt url: URL, languages: [String] = PreferredLanguages.system, maximumConnections: Int?) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { throw PokedexError.missingDatabase(path: url.path) }
        // Resolved once: `current` may be switched by an update at any moment, and every
        // connection, opened now or later, must read the same version. An update removes
        // the old version right after the switch, so a path resolved just before it may be
        // gone by the time SQLite opens the file (at the first query): then `current`
        // names another version, which is opened instead.
        var attempt = 0
        while true {
            attempt += 1
            let resolved = URL(fileURLWithPath: Self.resolvedPath(url.path))
            do {
                let database: Database
                do {
                    database = try Database.readerConnection(path: resolved.path, mode: .immutable)
                } catch {
                    throw PokedexError.cannotOpen(path: url.path, reason: error.message)
                }
                // The schema first: its query is what finds a file that is not a database.
                let schemaVersion = try Self.checkSchema(database, path: url.path)
                try Self.checkColumns(database, path: url.path)
                self.init(url: url, resolved: resolved, database: database, schemaVersion: schemaVersion,
                          languages: languages, maximumConnections: maximumConnections)
                return
            } catch where attempt < 3 && Self.resolvedPath(url.path) != resolved.path {
                continue
            }
        }
    }

    private init(url: URL, resolved: URL, database: Database, schemaVersion: String, languages: [String],
                 maximumConnections: Int?) {
        self.databaseURL = url
        self.languages = languages
        self.openedDatabaseURL = resolved
        self.spritesBaseURL = resolved.deletingLastPathComponent()
        self.schemaVersion = schemaVersion
        // A tuning, not a requirement: a failure here only leaves SQLite's default.
        try? database.setPageCache(kilobytes: Self.pageCacheKilobytes)
        self.pool = ConnectionPool(first: database, path: resolved.path, capacity: maximumConnections,
                                   pageCacheKilobytes: Self.pageCacheKilobytes)
        self.searchCache = SearchIndexCache()
        self.binding = nil
    }

    /// The same database, pool and search strings, reading through `binding`'s connection.
    init(bound base: Pokedex, to binding: ReadBinding) {
        databaseURL = base.databaseURL
        openedDatabaseURL = base.openedDatabaseURL
        spritesBaseURL = base.spritesBaseURL
        schemaVersion = base.schemaVersion
        languages = base.languages
        pool = base.pool
        searchCache = base.searchCache
        self.binding = binding
    }

    /// Each connection's page cache: small, as several may be open (SQLite's default is
    /// 2 MB). 512 kB: the heaviest detail reads as fast as with 2 MB; SQLite's own memory
    /// after the bench's detail pages and searches is then about 0.8 MB (pokedex-bench on
    /// the full data).
    static let pageCacheKilobytes = 512

    /// A value of `meta` by key.
    static let metaValue = ReadQuery(.meta, ["key", "value"], "WHERE key = ?")

    /// Reads `meta.schema_version` and refuses a newer major version than ``DeviceSchema/version``.
    private static func checkSchema(_ database: Database, path: String) throws -> String {
        let found: String?
        do {
            found = try database.record(metaValue, [.text(DeviceSchema.MetaKey.schemaVersion)]) {
                try $0.optionalText("value")
            } ?? nil
        } catch let error as DatabaseError {
            throw PokedexError.notAPokedex(path: path, reason: error.isCorruption ? error.message : "no meta table")
        } catch let error as ReadError {
            throw PokedexError.reading(error, path: path)
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

    /// Checks that the file has every table and column ``DeviceSchema`` declares, in one
    /// query: a file that lacks one fails here, naming it, rather than on some later read.
    private static func checkColumns(_ database: Database, path: String) throws {
        let found: [String: Set<String>]
        do {
            let rows = try database.rows("""
                SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type IN ('table', 'view')
                """) { ($0.text(0), $0.text(1)) }
            found = Dictionary(grouping: rows, by: \.0).mapValues { Set($0.map(\.1)) }
        } catch let error as DatabaseError {
            throw PokedexError.reading(error, path: path)
        }
        for table in DeviceSchema.tables {
            guard let columns = found[table.name] else { throw PokedexError.missingTable(path: path, table: table.name) }
            if let missing = table.columns.first(where: { !columns.contains($0) }) {
                throw PokedexError.missingColumn(path: path, table: table.name, column: missing)
            }
        }
    }

    /// The file URL of a sprite path from the database (`sprites/pokemon/25.png`, a
    /// ``PokemonSummary/thumbnail``) in the version folder this `Pokedex` opened
    /// (``spritesBaseURL``); nil once that folder is gone (an update removed the old
    /// version: ``needsReopen`` is true, and ``reopened()`` gives the new version's files).
    public func fileURL(forSpritePath path: String) -> URL? {
        // One stat of the folder: never a URL into another version, never one that cannot load.
        guard FileManager.default.fileExists(atPath: spritesBaseURL.path) else { return nil }
        return spritesBaseURL.appendingPathComponent(path, isDirectory: false)
    }

    /// The file URL of a bundled sprite (for an image view), as ``fileURL(forSpritePath:)``
    /// gives it; nil when it is not bundled (then ``PokemonSprite/url`` is where it is
    /// online) or the version folder is gone.
    public func fileURL(for sprite: PokemonSprite) -> URL? {
        sprite.path.flatMap(fileURL(forSpritePath:))
    }

    /// A value of `meta` (`version`, `lineage`, `profile`, ...), or nil when absent.
    /// - Throws: ``PokedexError/unreadable(path:reason:)`` when the query fails.
    public func metaValue(_ key: String) throws -> String? {
        try read { database in
            try database.record(Self.metaValue, [.text(key)]) { try $0.optionalText("value") } ?? nil
        }
    }

    /// Runs `body` with a connection of its own: the bound one inside an async
    /// ``read(_:)``, else one from the pool (waiting while all are busy). SQLite errors
    /// become ``PokedexError`` values naming the file; a cancelled async read throws
    /// `CancellationError`.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            if let binding, let database = try binding.connectionForCurrentThread() {
                return try body(database)
            }
            return try pool.withConnection(body)
        } catch let error as DatabaseError {
            if error.isInterrupted, binding?.isCancelled == true { throw CancellationError() }
            throw PokedexError.reading(error, path: databaseURL.path)
        } catch let error as ReadError {
            throw PokedexError.reading(error, path: databaseURL.path)
        }
    }

    /// The search index, built on first use, then shared read-only by every read.
    func loadedSearchIndex() throws -> SearchIndex {
        // A thread that holds a connection must not wait for a loader that may be waiting for it.
        try searchCache.index(waiting: pool.connectionBoundToCurrentThread() == nil) {
            try read { database in try SearchIndex.load(from: database, languages: languages) }
        }
    }
}
