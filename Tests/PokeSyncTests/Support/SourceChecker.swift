import Foundation
import Testing

/// A checker script in `Tests/Support` that reads a repository's files for a rule: it
/// prints one line a problem and exits 1, or prints `allWell` and exits 0. Its suite runs
/// it over this repository, then over a small tree of the suite's own, to show the rule
/// finds what it must (a checker that finds nothing anywhere passes vacuously).
struct SourceChecker {
    let script: URL
    /// What the script prints when it finds nothing.
    let allWell: String

    /// - Parameter name: the script's file name in `Tests/Support`.
    init(_ name: String, allWell: String) {
        script = TestPaths.support.appendingPathComponent(name)
        self.allWell = allWell
    }

    /// Runs the checker over the repository at `root`, `options` first.
    func run(_ root: URL, options: [String] = []) async throws -> ProgramResult {
        try await runProgram("python3", [script.path] + options + [root.path])
    }

    /// Runs the checker over this repository, which must keep the rule.
    func expectRepositoryKeepsTheRule(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await run(TestPaths.packageRoot)
        #expect(result.status == 0, "\(result.text)\n\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.text.contains(allWell), "\(result.text)", sourceLocation: sourceLocation)
    }

    /// Writes `files` (a path below the tree's root, and its text) into a fresh folder,
    /// runs `body` with the folder, and removes it afterwards, also when `body` throws.
    func withTree<R>(_ files: KeyValuePairs<String, String>, _ body: (URL) async throws -> R) async throws -> R {
        try await withTemporaryDirectory { root in
            for (path, text) in files {
                let file = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file)
            }
            return try await body(root)
        }
    }
}
