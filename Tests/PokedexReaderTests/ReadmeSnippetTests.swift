import Foundation
import Testing

/// The reader snippets of the README and of the reader's article (the whole app class, in
/// Reader.md's "In an app") compile as an app would build them: Swift 6, main-actor
/// isolation by default, warnings as errors, against the `PokedexReader` module this test
/// run was built with. Linux has no SwiftUI, so the compiled blocks keep to Foundation.
@Suite struct ReadmeSnippetTests {
    static let readme = "README.md"
    static let readerArticle = "Sources/PokedexReader/PokedexReader.docc/Reader.md"
    /// Each heading whose section's ```swift blocks are compiled, in its file, with what its code must show.
    static let sections: [(file: String, heading: String, mustContain: [String])] = [
        (readme, "### Reads from many tasks, async reads, and reopening after an update", ["pokedex.read", "reopened()"]),
        (readerArticle, "## In an app",
         ["Bundle.main.url(forResource:", ".applicationSupportDirectory", "allowsCellularAccess = false",
          "UpdaterSettings(", ".cancel()", "list(offset:", "entries(ofPokedex: 1", "fileURL(for:", "search(",
          "needsReopen", "reopened()", ".recovery"]),
        (readerArticle, "## The three screens", ["list(offset:", "localizedName", "search(", "pokemon(named:", "flavorText",
                                                 "evolutionChain", "fileURL(for"]),
    ]

    /// Every ```swift block between `heading` and the next heading of `file`, joined (one file).
    static func snippet(in file: String, under heading: String) throws -> String {
        let text = try String(contentsOf: ReaderFixtures.packageRoot.appendingPathComponent(file), encoding: .utf8)
        guard let section = text.range(of: heading + "\n") else {
            throw ReaderFixtures.Failure(description: "\(file) has no heading \"\(heading)\"")
        }
        var rest = text[section.upperBound...]
        // The next heading ends the section (`#if` inside a block is no heading).
        let ends = ["\n## ", "\n### "].compactMap { rest.range(of: $0)?.lowerBound }
        if let next = ends.min() { rest = rest[..<next] }
        var blocks: [Substring] = []
        while let open = rest.range(of: "```swift\n"), let close = rest.range(of: "\n```", range: open.upperBound..<rest.endIndex) {
            blocks.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        guard !blocks.isEmpty else {
            throw ReaderFixtures.Failure(description: "\(file) has no swift block under \"\(heading)\"")
        }
        return blocks.joined(separator: "\n")
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

    @Test(arguments: sections.indices)
    func theSnippetCompilesAsAnAppWouldBuildIt(section: Int) async throws {
        let (file, heading, mustContain) = Self.sections[section]
        let code = try Self.snippet(in: file, under: heading)
        for piece in mustContain { #expect(code.contains(piece), "\(heading): no \(piece)") }
        #expect(!code.contains("import SwiftUI"), "SwiftUI does not exist on Linux: the block cannot be checked here")
        try await ReaderFixtures.withTemporaryFolder { folder in
            let source = folder.appendingPathComponent("Snippet.swift")
            try Data(code.utf8).write(to: source)
            let modules = try Self.modulesFolder()
            let root = ReaderFixtures.packageRoot
            let (status, text) = try await ReaderFixtures.run(["swiftc", "-typecheck", "-swift-version", "6",
                                                         "-default-isolation", "MainActor", "-warnings-as-errors",
                                                         "-I", modules.path,
                                                         "-I", root.appendingPathComponent("Sources/CSQLite").path,
                                                         "-I", root.appendingPathComponent("Sources/CZlib").path,
                                                         "-I", root.appendingPathComponent("Sources/CSHA256/include").path,
                                                         source.path])
            #expect(status == 0, "\(heading): swiftc said:\n\(text)")
        }
    }
}
