import Foundation
import PokeSyncCore

/// The temporary folders `show`, `search` and `verify` extract bundles into:
/// `$TMPDIR/pokesync-PURPOSE-PID-XXXXXXXX`, removed when the command ends. A command
/// killed (kill -9, a power cut) cannot remove its own, so each command first sweeps those
/// of its user whose process is gone: a killed `show` does not leave tens of MB forever.
enum ScratchFolder {
    static let prefix = "pokesync-"
    /// The purposes there are; only their folders are ever swept (other tools, tests among
    /// them, name folders `pokesync-...` too).
    static let purposes: Set<Substring> = ["show", "verify"]

    /// A new scratch path for `purpose` (`show`, `verify`), after sweeping dead ones.
    static func make(_ purpose: String) -> URL {
        sweep()
        return FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)\(purpose)-\(getpid())-\(UUID().uuidString.prefix(8))")
    }

    /// Removes `pokesync-show-PID-...` and `pokesync-verify-PID-...` folders of this user whose process no longer runs.
    /// Another user's, a live process's, and anything not named so are left alone.
    static func sweep() {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix(prefix) {
            let parts = name.dropFirst(prefix.count).split(separator: "-")
            guard parts.count >= 2, purposes.contains(parts[0]), let pid = Int32(parts[1]), pid > 0, pid != getpid() else { continue }
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            let url = temporary.appendingPathComponent(name)
            var info = stat()
            guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid() else { continue }
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// `error`, its message naming `archive` where it named a file inside `folder` (the
    /// extract), with the same exit code: an error names the bundle the user gave, not a
    /// temporary path that is gone by the time it is read.
    static func renaming(_ error: any Error, scratch folder: URL, archive: String) -> any Error {
        guard let failure = error as? any PokeSyncError, failure.description.contains(folder.path) else { return error }
        var message = failure.description
        // `/tmp/pokesync-show-1-AB/pokedex.sqlite` → `bundle.tar.gz (pokedex.sqlite)`.
        while let range = message.range(of: folder.path) {
            let rest = message[range.upperBound...]
            let inner = rest.hasPrefix("/") ? rest.dropFirst().prefix { !$0.isWhitespace && $0 != ":" && $0 != "," && $0 != ")" } : ""
            let end = inner.isEmpty ? range.upperBound : inner.endIndex
            message.replaceSubrange(range.lowerBound..<end, with: inner.isEmpty ? archive : "\(archive) (\(inner))")
        }
        return CommandError.reworded(message, code: failure.code)
    }
}
