import Foundation
import PokeSyncCore

/// `pokesync verify PATH`: a mirror folder, a bundles folder, a full bundle or a delta.
struct VerifyCommand {
    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, options: [], flags: [])
        try arguments.expectPositionals(1...1, usage: "pokesync verify PATH (a mirror folder, a bundles folder, a bundle or a delta)")
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
            throw VerifyFailure(message: "verify \(path): \(result.problems.count) problem(s) in \(summary)")
        }
        print("verified \(path): \(summary); all sound")
        return .success
    }
}

/// A verification that found damage: exit 65.
struct VerifyFailure: PokeSyncFailure {
    var message: String
    var exitStatus: ExitStatus { .dataError }
    var description: String { message }
}
