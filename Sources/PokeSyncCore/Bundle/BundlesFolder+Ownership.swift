import Foundation
import PokedexReader

/// Whose folder it is. Export replaces `index.json` and, after the grace period, removes
/// the bundle files the index stops naming: it may do that only in a folder of its own.
///
/// A folder is pokesync's when it holds the marker `.pokesync-bundles` (written when
/// export first makes or adopts the folder). Export writes into a missing folder, an
/// empty one, or a marked one; it also adopts a bundles folder written before the marker
/// existed, when every entry is a name export writes (`index.json`, `pokedex-N.tar.gz`,
/// `pokedex-M-N.delta.tar.gz`, its dot-files) and the folder's lineage (its index's, else
/// each bundle manifest's) is the mirror's. Anything else is refused, untouched.
extension BundlesFolder {
    package static let markerName = ".pokesync-bundles"

    /// Makes the folder (marked as pokesync's), or checks it is pokesync's, adopting an
    /// older unmarked one; or says clearly why it cannot be used.
    /// - Parameter lineage: the mirror's lineage, which an unmarked folder must be of.
    /// - Throws: `RequestError` (64) for a file, or a folder that is not pokesync's;
    ///   `LocalFileError` (74) when it cannot be made or written.
    package func prepare(lineage: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw RequestError.outputIsFile(path: root.path, apiData: false) }
            guard access(root.path, W_OK) == 0 else { throw LocalFileError(path: root.path, errno: errno) }
            if isMarked { return }
            try checkAdoptable(lineage: lineage)
        } else {
            try FileSystem.createDirectory(root)
        }
        // Written aside and renamed: a link planted under the marker's name is replaced, not followed.
        let scratch = scratchFile(for: Self.markerName)
        try FileSystem.writeFile(Self.marker(), to: scratch)
        guard rename(scratch.path, url(Self.markerName).path) == 0 else {
            let code = errno
            unlink(scratch.path)
            throw LocalFileError(path: url(Self.markerName).path, errno: code)
        }
        FileSystem.sync(file: root)
    }

    /// Whether the folder holds pokesync's marker (a regular file, not a link).
    var isMarked: Bool {
        var info = stat()
        return lstat(url(Self.markerName).path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// `{"format":"pokesync-bundles","pokesync":"<version>"}` and a newline: for people
    /// wondering what the dot-file is; only its presence counts.
    static func marker() -> [UInt8] {
        Array("{\"format\":\"pokesync-bundles\",\"pokesync\":\"\(PokeSync.version)\"}\n".utf8)
    }

    /// An unmarked folder is adopted when empty, or when it is a bundles folder export
    /// wrote before the marker existed, of this lineage.
    /// - Throws: `RequestError` (64) naming the folder and the first entry that is not export's.
    private func checkAdoptable(lineage: String) throws {
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
        func refuse(_ why: String) -> RequestError {
            // Export replaces index.json and removes bundles it stops naming.
            RequestError.outputNotABundlesFolder(path: root.path, why: why)
        }
        if let stranger = entries.first(where: { !Self.isExportName($0) }) { throw refuse("it holds \(stranger)") }
        if entries.contains(Self.indexName) {
            guard let index = currentIndex() else { throw refuse("its index.json is not one pokesync wrote") }
            guard index.lineage == lineage else { throw refuse("its index.json is of another lineage, \(index.lineage.prefix(8))...") }
            return
        }
        for name in entries where Self.isBundleFile(name) {
            guard let manifest = try? BundleArchive.readManifest(url(name)), manifest.lineage == lineage else {
                throw refuse("\(name) is not a bundle of this mirror's lineage")
            }
        }
    }

    /// A name export writes: the index, a bundle or delta named by version numbers, the
    /// marker, the retired list, a scratch file (`.NAME.partial-PID-XXXX`).
    static func isExportName(_ name: String) -> Bool {
        if [indexName, markerName, retiredName, checkedName].contains(name) { return true }
        if name.hasPrefix("."), name.contains(".partial-") { return true }
        guard name.hasPrefix("pokedex-") else { return false }
        func isNumber(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy { ("0"..."9").contains($0) } }
        if name.hasSuffix(".delta.tar.gz") {
            let versions = name.dropFirst("pokedex-".count).dropLast(".delta.tar.gz".count).split(separator: "-", omittingEmptySubsequences: false)
            return versions.count == 2 && versions.allSatisfy(isNumber)
        }
        return name.hasSuffix(".tar.gz") && isNumber(name.dropFirst("pokedex-".count).dropLast(".tar.gz".count))
    }

    /// Bookkeeping: the SHA-256 of each file the index names, as checked or written under
    /// that name. A file whose bytes match is not extracted and checked again; one copied or
    /// truncated under the name no longer matches, and is.
    static let checkedName = ".pokesync-checked.json"

    /// The recorded hashes (empty when there are none, or they do not decode).
    func checkedFiles() -> [String: String] {
        guard let data = FileManager.default.contents(atPath: url(Self.checkedName).path),
              let hashes = try? JSONDecoder().decode([String: String].self, from: data) else { return [:] }
        return hashes
    }

    /// Records `files` (and only them) as checked.
    func recordChecked(_ files: [PublishedFile]) throws {
        let hashes = Dictionary(files.map { ($0.name, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        // Bookkeeping, not for devices: lost, the next export checks the files again.
        let scratch = scratchFile(for: Self.checkedName)
        try FileSystem.writeFile(try BundleJSON.encode(hashes), to: scratch)
        guard rename(scratch.path, url(Self.checkedName).path) == 0 else {
            let code = errno
            unlink(scratch.path)
            throw LocalFileError(path: url(Self.checkedName).path, errno: code)
        }
    }
}
