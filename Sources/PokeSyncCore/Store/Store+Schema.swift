import Foundation
import PokeSQLite
extension Store {
    /// The store's tables. Documents are kept once per content (SHA-256 of the
    /// canonical JSON); versions only name them.
    static let schema = """
    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    -- Canonical JSON, zlib-compressed; sprite_refs: "key<TAB>url" lines, zlib-compressed.
    CREATE TABLE IF NOT EXISTS documents(
        hash BLOB PRIMARY KEY, size INTEGER NOT NULL, body BLOB NOT NULL, sprite_refs BLOB);
    -- Sprite bytes live in objects/ by hash; this says which are complete there.
    CREATE TABLE IF NOT EXISTS sprite_objects(hash BLOB PRIMARY KEY, size INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS versions(
        number INTEGER PRIMARY KEY, created_at TEXT NOT NULL, mode TEXT NOT NULL,
        source TEXT NOT NULL, sprite_source TEXT, sprite_set TEXT NOT NULL, deploy_hash TEXT,
        documents INTEGER NOT NULL, sprites INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS version_documents(
        version INTEGER NOT NULL, kind TEXT NOT NULL, id INTEGER NOT NULL, name TEXT,
        hash BLOB NOT NULL, PRIMARY KEY(version, kind, id)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS version_documents_by_hash ON version_documents(hash);
    CREATE TABLE IF NOT EXISTS version_sprites(
        version INTEGER NOT NULL, path TEXT NOT NULL, url TEXT NOT NULL, hash BLOB NOT NULL,
        PRIMARY KEY(version, path)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS version_sprites_by_hash ON version_sprites(hash);
    -- What a version's --kinds was (default, all, a list) and resolved to (every kind it
    -- mirrors, an endpoint that listed nothing included): its root, and the set a sync
    -- that names none keeps. Versions made before kinds were data have no row (default).
    CREATE TABLE IF NOT EXISTS version_kinds(
        version INTEGER PRIMARY KEY, selection TEXT NOT NULL, resolved TEXT NOT NULL);
    -- What a server said last time, for conditional requests; key is "kind/id" or a sprite URL.
    CREATE TABLE IF NOT EXISTS validators(
        key TEXT PRIMARY KEY, etag TEXT, last_modified TEXT, hash BLOB) WITHOUT ROWID;
    -- The run in progress (at most one) and its frontier: every list, document and
    -- sprite job with its state, so that a killed run resumes where it stopped.
    -- AUTOINCREMENT: a run id is never reused, so rows keyed by run (sprite reports
    -- kept with a version) cannot collide with a later run's.
    CREATE TABLE IF NOT EXISTS runs(
        id INTEGER PRIMARY KEY AUTOINCREMENT, mode TEXT NOT NULL, source TEXT NOT NULL, sprite_source TEXT,
        sprite_set TEXT NOT NULL, revalidate INTEGER NOT NULL, started_at TEXT NOT NULL,
        deploy_hash TEXT, base_version INTEGER);
    CREATE TABLE IF NOT EXISTS frontier(
        run INTEGER NOT NULL, job TEXT NOT NULL, key TEXT NOT NULL,
        kind TEXT, id INTEGER, name TEXT, url TEXT, path TEXT,
        state TEXT NOT NULL DEFAULT 'pending', hash BLOB, error TEXT, document TEXT,
        PRIMARY KEY(run, job, key)) WITHOUT ROWID;
    -- The cries of a version, as version_sprites holds its sprites (paths below cries/),
    -- and the --cries set and --cry-source it was made with (versions made before cries
    -- were mirrored have no row: none).
    CREATE TABLE IF NOT EXISTS version_cries(
        version INTEGER NOT NULL, path TEXT NOT NULL, url TEXT NOT NULL, hash BLOB NOT NULL,
        PRIMARY KEY(version, path)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS version_cries_by_hash ON version_cries(hash);
    CREATE TABLE IF NOT EXISTS version_cry_sets(
        version INTEGER PRIMARY KEY, selection TEXT NOT NULL, source TEXT);
    -- Linked files skipped (refused, missing upstream) with the document that named them.
    CREATE TABLE IF NOT EXISTS sprite_reports(
        run INTEGER, version INTEGER, url TEXT NOT NULL, document TEXT NOT NULL,
        outcome TEXT NOT NULL, reason TEXT NOT NULL, UNIQUE(run, url, document));
    -- Linked files a version carried from the one before because their host failed or
    -- answered 404/410 (`missing` of them), or left out, never held, counted by tree and
    -- host, with one failure as an example.
    CREATE TABLE IF NOT EXISTS version_carried(
        version INTEGER NOT NULL, tree TEXT NOT NULL, host TEXT NOT NULL, carried INTEGER NOT NULL,
        postponed INTEGER NOT NULL, example TEXT NOT NULL, missing INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY(version, tree, host)) WITHOUT ROWID;
    """

    static func migrate(_ database: Database) throws {
        try database.transaction { database in
            try database.execute(schema)
            if try database.integer("SELECT value FROM meta WHERE key = 'schema_version'") == nil {
                try database.run("INSERT INTO meta(key, value) VALUES ('schema_version', ?)", [.text(String(schemaVersion))])
            }
            // The lineage: a random id made once with the store. A rebuilt mirror starts at
            // version 1 again under a new one, so devices never compare across the two.
            try database.run("INSERT OR IGNORE INTO meta(key, value) VALUES ('lineage', ?)", [.text(newLineage())])
            // A sprite job names the document that named it ("pokemon/25") in its own
            // column; stores made before kept it in `name`, which reads fall back to.
            try addColumn(database, table: "frontier", column: "document TEXT")
            // Kinds are data (--kinds): a run records what it was asked for and what that
            // resolved to; a list entry its place in the source's list, which is not always
            // id order. Stores made before mirrored the default kinds, in id order (NULL).
            try addColumn(database, table: "runs", column: "kinds TEXT")
            try addColumn(database, table: "runs", column: "resolved_kinds TEXT")
            try addColumn(database, table: "frontier", column: "position INTEGER")
            try addColumn(database, table: "version_documents", column: "position INTEGER")
            // Cries (--cries, --cry-source): what a run was asked for, and each document's
            // cry links ("key<TAB>url" lines under its `cries`, zlib-compressed).
            try addColumn(database, table: "runs", column: "cries TEXT")
            try addColumn(database, table: "runs", column: "cry_source TEXT")
            try addColumn(database, table: "documents", column: "cry_refs BLOB")
            // The address a linked file was asked at (its host may not be upstream's), kept
            // with a failed or missing file for the messages that name its host.
            try addColumn(database, table: "frontier", column: "fetched TEXT")
            // Of the files a version carried, those their host answered 404/410 for while a
            // document still linked them (carried since, not dropped).
            try addColumn(database, table: "version_carried", column: "missing INTEGER NOT NULL DEFAULT 0")
            // The upstream state a run started from, compared when it is resumed and at its
            // end: the root's endpoints here (NULL: not read), each list's fingerprint in its
            // `list` row's hash (NULL in a run made before: taken as changed).
            try addColumn(database, table: "runs", column: "root_endpoints TEXT")
        }
    }

    /// Adds `column` ("name TYPE") to `table` unless a store made by this build has it already.
    private static func addColumn(_ database: Database, table: String, column: String) throws {
        let name = String(column.prefix { $0 != " " })
        if try !hasColumn(database, table: table, column: name) {
            try database.execute("ALTER TABLE \(table) ADD COLUMN \(column)")
        }
    }

    /// Whether `table` has `column`. A store made by an older build and opened read-only
    /// (status, export, serve) was never migrated: its readers ask, each time, since
    /// another process's run may migrate it meanwhile.
    static func hasColumn(_ database: Database, table: String, column: String) throws -> Bool {
        try database.rows("PRAGMA table_info(\(table))", []) { $0.text(1) }.contains(column)
    }

    static func checkSchema(_ database: Database, display: String) throws {
        guard try database.integer("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") == 1 else {
            let empty = (try? FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int) == 0
            throw StoreError.corrupt(display, empty ? "the file is empty (0 bytes); restore it from a backup, or move it away to start a new history"
                                                    : "no meta table (not a pokesync store?)")
        }
        guard let version = try database.row("SELECT value FROM meta WHERE key = 'schema_version'", [], { $0.text(0) }),
              let number = Int(version) else {
            throw StoreError.corrupt(display, "no schema version (not a pokesync store?)")
        }
        if number > schemaVersion { throw StoreError.newerSchema(display, number) }
    }
}

/// 128 random bits as 32 lowercase hex digits.
func newLineage() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
}

extension Store {
    /// The mirror's lineage (``newLineage()``), made when the store was created or first
    /// opened for writing by a build that knows lineages.
    /// - Throws: `StoreError.corrupt` when the store has none (opened read-only before any
    ///   writing command ran on it).
    package func lineage() throws -> String {
        guard let value = try read({ try $0.row("SELECT value FROM meta WHERE key = 'lineage'", [], { $0.text(0) }) }) else {
            throw StoreError.corrupt(layout.display(layout.storeFile), "no lineage recorded")
        }
        return value
    }
}
