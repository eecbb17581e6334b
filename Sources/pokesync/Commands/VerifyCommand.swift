import Foundation
import PokeSyncCore

/// `pokesync verify PATH`: a mirror folder, a bundles folder, a full bundle or a delta.
struct VerifyCommand {
    /// `pokesync help verify`.
    static let spec = CommandSpec(name: "verify", positionals: "PATH", positionalCount: 1...1, usage: [],
                                  sections: [.text("""
        A mirror folder: the SQLite store (quick_check), every document of every retained
        version and every sprite object against its SHA-256, and the sprite tree against the
        version it records (a run brings the tree to a new version after publishing it; a tree
        part way is said in a note, not counted as damage).
        A bundles folder (index.json), a bundle (.tar.gz) or a delta: the archive's gzip and tar
        integrity through the same safe extraction a device uses, every file against the
        manifest's size and SHA-256 (and the index's), PRAGMA integrity_check, the database's
        meta, content_digest recomputed; in a bundles folder a delta is also applied to its
        base's database when that full bundle is still there.
        Exit 0 when all is sound, 65 naming the first bad file otherwise.
        """)])

    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, command: Self.spec)
        try arguments.expectPositionals(Self.spec, usage: "pokesync verify PATH (a mirror folder, a bundles folder, a bundle or a delta)")
    }

    func execute() throws -> ExitStatus {
        let path = arguments.positionals[0]
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw UsageError("verify \(path): no such file or folder")
        }
        let url = URL(fileURLWithPath: path)
        let isBundles = isFolder.boolValue && FileManager.default.fileExists(atPath: url.appendingPathComponent(BundlesFolder.indexName).path)
        if !isFolder.boolValue || isBundles {
            guard isBundles || path.hasSuffix(".tar.gz") else {
                throw UsageError("verify \(path): not a mirror folder, a bundles folder or a .tar.gz bundle")
            }
            let scratch = ScratchFolder.make("verify")
            defer { try? FileManager.default.removeItem(at: scratch) }
            var verifier = BundleVerifier(scratch: scratch)
            do {
                if isBundles { try verifier.verifyFolder(url) } else { try verifier.verifyArchive(url, expected: nil, index: nil) }
            } catch {
                // Extracts live in the scratch folder: an error names the bundle instead.
                throw ScratchFolder.renaming(error, scratch: scratch, archive: path)
            }
            for line in verifier.checked { print("ok: \(line)") }
            print("verified \(path): all sound")
            return .success
        }
        let layout = MirrorLayout(root: URL(fileURLWithPath: path))
        let result = try MirrorVerifier.verify(layout)
        for problem in result.problems.prefix(50) { print("problem: \(problem)") }
        if result.problems.count > 50 { print("... and \(result.problems.count - 50) more") }
        for note in result.notes { print("note: \(note)") }
        let summary = "\(result.versions) versions, \(result.documents) documents, \(result.spriteObjects) sprite objects, \(result.treeFiles) files in the sprite tree"
        guard result.isSound else {
            throw CommandError.verifyFoundDamage("verify \(path): \(result.problems.count) problem(s) in \(summary)")
        }
        print("verified \(path): \(summary); all sound")
        return .success
    }
}
