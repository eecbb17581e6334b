import Foundation
import Testing

/// The README's exit-code table and `pokesync help` say what the code does.
@Suite("Exit codes as documented")
struct ExitCodeDocsTests {
    static let codes: [Int32] = [0, 1, 2, 64, 65, 69, 74, 75, 77, 130]

    /// The README's `| code | meaning |` rows.
    static func readmeRows() throws -> [Int32: String] {
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var rows: [Int32: String] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 2, let code = Int32(cells[0]) { rows[code] = cells[1] }
        }
        return rows
    }

    @Test func readmeAndHelpNameEveryCodeAndAgreeOnUnparsableDocuments() async throws {
        let rows = try Self.readmeRows()
        #expect(Set(rows.keys) == Set(Self.codes))
        // A document that never parses fails like any resource after retries: exit 1.
        #expect(rows[1]?.contains("never parsed") == true)
        #expect(rows[65]?.contains("parse") == false)
        let help = try await PokesyncCLI(mirror: URL(fileURLWithPath: "/nonexistent")).run(["help"], addMirror: false).stdout
        let section = try #require(help.range(of: "exit codes:").map { help[$0.lowerBound...] })
        for code in Self.codes { #expect(section.contains("\(code) "), "help does not name \(code)") }
        #expect(section.contains("never parsed"))
    }

    @Test func aDocumentThatNeverParsesExits1() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.copyItem(at: TestPaths.sample2025, to: source)
            try Data("{\"id\": 1, ".utf8).write(to: TestPaths.document(in: source, kind: "pokedex", id: 17))
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let result = try await cli.run(["full", "--source", source.path, "--sprites", "none"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("pokedex/17"))
        }
    }
}
