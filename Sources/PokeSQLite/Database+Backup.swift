import CSQLite

extension Database {
    /// Copies this database, as one consistent snapshot, into a new file at `path` with
    /// SQLite's online backup API: the pages committed in the `-wal` included, however
    /// many readers hold the database open (a plain copy of the main file misses them).
    /// All pages go in one step, so a writer in another process cannot make it restart.
    /// - Throws: `DatabaseError` when `path` cannot be created or the copy fails.
    public func backup(to path: String) throws(DatabaseError) {
        let target = try Database(path: path, mode: .readWrite)
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw target.error(code: sqlite3_errcode(target.handle), sql: nil)
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            throw error(code: stepped == SQLITE_DONE ? finished : stepped, sql: nil)
        }
    }
}
