import Foundation

/// The mirror has one owner: every command that writes it (`full`, `sync`, `export`'s
/// bundles, `prune`, `backup`: those that take its lock) runs as the user who owns the
/// folder. Root running one on another user's mirror would leave files (a `bundles/`, a
/// store's journal, a sprite) the owner's nightly job cannot replace, and every night
/// after would fail with 74; so root is refused at once, before anything is written, with
/// the line to run instead. Chowning each file root writes was the other choice: it has
/// to reach every file SQLite and the exporters make, and one missed is the same broken
/// night, so refusing is the one that cannot be half right.
///
/// `export --format api-data --out DIR` takes no lock (it only reads the store), so it is
/// checked on its own: refused likewise when `DIR` lies inside the mirror folder.
///
/// Readers (`status`, `versions`, `diff`, `show`, `serve`, `verify`) are not refused: the
/// only files they make are SQLite's `-wal`/`-shm`, which SQLite itself gives the store's
/// owner when it runs as root.
package enum MirrorOwner {
    /// - Throws: `MirrorError.foreignOwner` (exit 77) when this process runs as root and the
    ///   mirror folder belongs to another user; a missing folder is judged by the nearest
    ///   folder above it that exists (`sudo pokesync full` in `/srv/pokesync`, which the
    ///   `pokesync` user owns, would otherwise make a root-owned mirror there).
    package static func check(_ layout: MirrorLayout) throws {
        guard geteuid() == 0 else { return }  // another user meets the folder's permissions (74)
        guard let owner = owner(ofNearest: layout.root), owner != 0 else { return }
        throw MirrorError.foreignOwner(ForeignOwner(mirror: absolutePath(layout.root.path), owner: owner, ownerName: userName(owner)))
    }

    /// `check(layout)` for a command that writes `folder` without taking the mirror's lock:
    /// it applies when `folder` is the mirror folder or inside it (symbolic links followed
    /// as far as the path exists), and nowhere else.
    package static func check(_ layout: MirrorLayout, writing folder: URL) throws {
        guard geteuid() == 0 else { return }
        let mirror = resolvedPath(layout.root), target = resolvedPath(folder)
        guard target == mirror || target.hasPrefix(mirror.hasSuffix("/") ? mirror : mirror + "/") else { return }
        try check(layout)
    }

    /// `path` from the root: the line to run instead must not depend on a folder the
    /// operator typed it in, nor on a `POKESYNC_MIRROR` their shell no longer has.
    package static func absolutePath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    /// `folder` with the symbolic links of its nearest existing folder resolved, and the
    /// part that does not exist yet appended as it is.
    static func resolvedPath(_ folder: URL) -> String {
        var existing = absolutePath(folder.path), rest: [String] = []
        while true {
            if let real = realpath(existing, nil) {
                defer { free(real) }
                return ([String(cString: real)] + rest.reversed()).joined(separator: "/").replacingOccurrences(of: "//", with: "/")
            }
            let parent = (existing as NSString).deletingLastPathComponent
            if parent == existing || parent.isEmpty { return absolutePath(folder.path) }
            rest.append((existing as NSString).lastPathComponent)
            existing = parent
        }
    }

    /// The owner of `folder`, or of the nearest folder above it that exists.
    static func owner(ofNearest folder: URL) -> uid_t? {
        var path = folder.standardizedFileURL.path
        while true {
            var info = stat()
            if stat(path, &info) == 0 { return info.st_uid }
            let parent = (path as NSString).deletingLastPathComponent
            if parent == path || parent.isEmpty { return nil }
            path = parent
        }
    }

    static func userName(_ uid: uid_t) -> String? {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }
}

/// A mirror another user owns, that root asked to write (``MirrorError/foreignOwner(_:)``).
package struct ForeignOwner: Sendable {
    package var mirror: String
    package var owner: uid_t
    package var ownerName: String?

    /// The owner as a user name, else `uid N`.
    package var ownerDisplay: String { ownerName ?? "uid \(owner)" }

    /// The message, with the command to run instead when `rerun` (this command's words,
    /// the program first) is given and the owner has a name.
    package func description(rerun: [String]?) -> String {
        let head = "the mirror \(mirror) belongs to \(ownerDisplay); every command that writes it runs as that user"
        guard let rerun, let ownerName else { return head + " (not as root)" }
        return head + "; run: runuser -u \(ShellQuote.quote(ownerName)) -- "
            + rerunWords(rerun).map(ShellQuote.quote).joined(separator: " ")
    }

    /// The command's words as they work pasted into a new shell: the program by an absolute
    /// path when it was named by a relative one (one found on PATH stays as it is), and the
    /// mirror as `--mirror` with its absolute path, whether it came from `--mirror`,
    /// `POKESYNC_MIRROR` (a one-off prefix the new shell has not got) or `./Mirror`.
    func rerunWords(_ words: [String]) -> [String] {
        guard let program = words.first else { return [] }
        var kept = [program.contains("/") ? MirrorOwner.absolutePath(program) : program]
        var rest = words.dropFirst()[...], positionals: [String] = []
        while let word = rest.popFirst() {
            if word == "--" { positionals = ["--"] + rest; break }
            if word == "--mirror" { _ = rest.popFirst(); continue }
            if word.hasPrefix("--mirror=") { continue }
            kept.append(word)
        }
        return kept + ["--mirror", mirror] + positionals
    }
}

/// Words as a POSIX shell reads them back: plain ones as they are, others in single quotes.
package enum ShellQuote {
    package static func quote(_ word: String) -> String {
        let plain = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")
        if !word.isEmpty, word.unicodeScalars.allSatisfy(plain.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
