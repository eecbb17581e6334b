import Foundation
import PokedexReader

extension BundleExporter {
    /// A file already in the folder under a name this export would write, checked as
    /// `pokesync verify` checks a bundle (gzip, tar, every manifest size and hash, the
    /// database or `changes.sqlite`) and against its name: the version and base its
    /// manifest says, this mirror's lineage and this profile. Only then may an index name
    /// it. Returns nil when there is no such file, or when a damaged one was moved aside.
    /// - Parameters:
    ///   - base: the delta's base version; nil for a full bundle.
    ///   - replaceDamaged: move a damaged file aside (`.NAME.damaged-TIME`, never deleted)
    ///     so that a fresh one is written, instead of refusing; what was moved is added
    ///     to `movedAside`, one line each.
    ///   - checked: the SHA-256 of each file checked or written under its name before
    ///     (``BundlesFolder/checkedFiles()``): the same bytes are not extracted again.
    /// - Throws: ``ExportError/damagedBundle(file:problem:)`` (65) naming the file and how to repair it;
    ///   `RequestError` (64) for a sound file of another lineage or profile.
    func checkedExisting(_ name: String, version: Int, base: Int?, lineage: String, profile: BundleProfile,
                         replaceDamaged: Bool, checked: [String: String], scratch: URL,
                         movedAside: inout [String]) throws -> PublishedFile? {
        let url = folder.url(name)
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        let manifest: BundleManifest
        var file: PublishedFile
        do {
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw ExportError.bundleFormat(file: url.path, reason: "not a regular file (a link or a folder)")
            }
            file = try PublishedFile(existing: url, name: name, new: false)
            if checked[name] == file.sha256 {
                // These very bytes were checked (or written) under this name before: the
                // manifest is enough, as it was before checks existed. Saves the nightly job
                // an extract of every bundle it keeps.
                manifest = try BundleArchive.readManifest(url)
            } else {
                var verifier = BundleVerifier(scratch: scratch)
                let extract = try verifier.verifyArchive(url, expected: nil, index: nil)
                try? FileManager.default.removeItem(at: extract.folder)
                manifest = extract.manifest
            }
            guard manifest.version == version, manifest.baseVersion == base, manifest.isDelta == (base != nil) else {
                let said = manifest.isDelta ? "a delta from version \(manifest.baseVersion ?? 0) to \(manifest.version)"
                    : "the full bundle of version \(manifest.version)"
                throw ExportError.bundleFormat(file: url.path, reason: "its manifest says it is \(said), not what its name says")
            }
        } catch let error as any PokeSyncError where error.exitStatus == .dataError {
            // The problem, without the file's name again in front of it.
            let problem = error.description.hasPrefix(url.path + ": ") ? String(error.description.dropFirst(url.path.count + 2))
                : error.description
            guard replaceDamaged else { throw ExportError.damagedBundle(file: url.path, problem: problem) }
            let aside = folder.url(".\(name).damaged-\(Self.stamp())")
            guard rename(url.path, aside.path) == 0 else { throw LocalFileError(path: url.path, errno: errno) }
            movedAside.append("moved the damaged \(name) aside to \(aside.path) (\(problem)); writing it afresh")
            return nil
        }
        file.take(manifest)
        try Self.checkSameLine(file, lineage: lineage, profile: profile, folder: folder)
        return file
    }

    /// `20261123T212500Z`: when a damaged file was moved aside.
    static func stamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: Date())
    }
}
