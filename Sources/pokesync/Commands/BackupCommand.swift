import Foundation
import PokeSyncCore

/// `pokesync backup DEST [--mirror DIR]`.
struct BackupCommand: MirrorCommand {
    /// `pokesync help backup`.
    static let spec = CommandSpec(name: "backup", positionals: "DEST", positionalCount: 1...1,
                                  usage: [.optional(.mirror)], sections: [.text("""
        Copies the mirror folder to DEST (a new path outside it), whole and consistent, while serve and
        other readers use it: the store through SQLite's online backup API (the commits still
        in its -wal included), every other file as it is, hard links kept (sprites/ and cries/
        stay links into objects/). It holds the mirror's lock, so a sync, prune or export that
        starts meanwhile is refused (75) and one already running makes it exit 75 at once.
        Left out: logs/, .tmp/ and the lock. DEST is built beside itself and renamed into place,
        so it exists only whole. Restore: copy DEST back (cp -a keeps the hard links) as the
        mirror's owner, then pokesync verify it.
        """)])

    let arguments: Arguments

    func execute() throws -> ExitStatus {
        let path = arguments.positionals[0]
        guard !path.isEmpty else { throw UsageError("backup needs DEST, a new path") }
        let destination = URL(fileURLWithPath: path)
        var info = stat()
        if lstat(destination.path, &info) == 0 {
            throw UsageError("backup \(path) exists; give a new path (a backup never replaces anything)")
        }
        let report = try MirrorBackup.run(layout: layout, destination: destination)
        let version = report.latestVersion.map { "version \($0)" } ?? "no version yet"
        print(String(format: "backed up %@ (%@) to %@: %d files, %d hard links, %.1f MB",
                     layout.root.path, version, destination.path, report.files, report.links, Double(report.bytes) / 1e6))
        return .success
    }
}
