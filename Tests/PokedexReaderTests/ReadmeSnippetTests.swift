import Foundation
import Testing

/// The README's reader snippet under "Reads from many tasks" compiles as an app would
/// build it: Swift 6, main-actor isolation by default, warnings as errors, against the
/// `PokedexReader` module this test run was built with.
@Suite struct ReadmeSnippetTests {
    static let heading = "### Reads from many tasks, async reads, and reopening after an update"

    /// The first ```swift block after `heading`.
    static func snippet() throws -> String {
        let readme = try String(contentsOf: ReaderFixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: heading),
              let open = readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex),
              let close = readme.range(of: "\n```", range: open.upperBound..<readme.endIndex) else {
            throw ReaderFixtures.Failure(description: "README.md has no swift block under \"\(heading)\"")
        }
        return String(readme[open.upperBound..<close.lowerBound])
    }

    /// The folder holding this build's `PokedexReader.swiftmodule`: beside the test binary.
    static func modulesFolder() throws -> URL {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var candidates = [binary.deletingLastPathComponent().appendingPathComponent("Modules")]
        candidates.append(ReaderFixtures.packageRoot.appendingPathComponent(".build/debug/Modules"))
        guard let found = candidates.first(where: {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("PokedexReader.swiftmodule").path)
        }) else {
            throw ReaderFixtures.Failure(description: "no PokedexReader.swiftmodule in \(candidates.map(\.path))")
        }
        return found
    }

    @Test func theSnippetCompilesAsAnAppWouldBuildIt() async throws {
        let code = try Self.snippet()
        #expect(code.contains("pokedex.read"))
        #expect(code.contains("reopened()"))
        try await ReaderFixtures.withTemporaryFolder { folder in
            let source = folder.appendingPathComponent("Snippet.swift")
            try Data(code.utf8).write(to: source)
            let modules = try Self.modulesFolder()
            let root = ReaderFixtures.packageRoot
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-default-isolation", "MainActor",
                                 "-warnings-as-errors", "-I", modules.path,
                                 "-I", root.appendingPathComponent("Sources/CSQLite").path,
                                 "-I", root.appendingPathComponent("Sources/CZlib").path, source.path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "swiftc said:\n\(text)")
        }
    }
}
