import Foundation

extension Pokedex {
    /// True when ``databaseURL`` now leads to another file than the one this `Pokedex`
    /// opened: an update switched `DIR/current` to a new version (or removed it).
    ///
    /// The open `Pokedex` goes on reading the version it opened, even once an update has
    /// deleted that version's folder (the open file stays readable), so nothing breaks
    /// meanwhile; but the app sees new data only after ``reopened()``:
    ///
    /// ```swift
    /// if pokedex.needsReopen { pokedex = try pokedex.reopened() }
    /// ```
    ///
    /// Cheap (it resolves one link), so an app may check it on each launch or foreground.
    public var needsReopen: Bool {
        Self.resolvedPath(databaseURL.path) != openedDatabaseURL.path
    }

    /// `path` with every link resolved (`realpath`), or `path` itself when it does not
    /// lead to a file now. realpath rather than Foundation's `resolvingSymlinksInPath`:
    /// one system call, and it resolves `/tmp` on macOS too.
    static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A new `Pokedex` on what ``databaseURL`` leads to now (the new `current` after an
    /// update). This one stays usable until it is released; queries running on it finish.
    /// - Throws: ``PokedexError`` as ``init(databaseAt:)`` does (no database there now, a
    ///   newer schema...).
    public func reopened() throws -> Pokedex {
        try Pokedex(databaseAt: databaseURL)
    }
}
