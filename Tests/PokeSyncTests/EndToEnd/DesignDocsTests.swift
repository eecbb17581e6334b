import Foundation
import Testing

/// The design lives in the repo, in the DocC catalogs beside the code, and every pointer to
/// it leads somewhere: `Tests/Support/check_doc_links.py` reads every comment in `Sources/`,
/// every article and the README, and fails on a comment or article naming DESIGN (a file a
/// clone does not have), a `<doc:>` link to a missing article or section, a relative link
/// to a missing file or heading (the README's links into the articles included), or an
/// article its landing page's Topics does not list.
@Suite("Design docs")
struct DesignDocsTests {
    static let script = TestPaths.packageRoot.appendingPathComponent("Tests/Support/check_doc_links.py")

    @Test func everyDesignLinkInTheRepoResolves() throws {
        let result = try runProgram("python3", [Self.script.path, TestPaths.packageRoot.path])
        #expect(result.status == 0, "\(result.text)\n\(result.stderr)")
        #expect(result.text.contains("every design link resolves"), "\(result.text)")
    }

    /// The checker is not vacuous: in a small tree of its own, each kind of broken pointer
    /// is named, and the run fails.
    @Test func theCheckerNamesEachBrokenPointer() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pokesync-docs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let catalog = root.appendingPathComponent("Sources/Thing/Thing.docc")
        try FileManager.default.createDirectory(at: catalog, withIntermediateDirectories: true)
        func write(_ path: String, _ text: String) throws {
            try Data(text.utf8).write(to: root.appendingPathComponent(path))
        }
        try write("Sources/Thing/Thing.docc/Thing.md", "# ``Thing``\n\n## Topics\n\n- <doc:Guide>\n")
        try write("Sources/Thing/Thing.docc/Guide.md", "# Guide\n\n## Real section\n\nSee <doc:Missing>.\n")
        try write("Sources/Thing/Thing.docc/Unlisted.md", "# Unlisted\n")
        try write("Sources/Thing/Code.swift", "// <doc:Guide#No-such-section>\n// See DESIGN, section 4.\nlet x = 1\n")
        try write("README.md", "[ok](Sources/Thing/Thing.docc/Guide.md#real-section), "
                  + "[bad](Sources/Thing/Thing.docc/Guide.md#gone), [missing](Sources/Thing/Thing.docc/Nope.md)\n")

        let result = try runProgram("python3", [Self.script.path, root.path])
        #expect(result.status == 1, "\(result.text)\n\(result.stderr)")
        for expected in ["Code.swift:1: <doc:Guide#No-such-section>", "Code.swift:2: a comment points to DESIGN",
                         "Guide.md:5: <doc:Missing>", "does not list <doc:Unlisted>",
                         "README.md:1: link to Sources/Thing/Thing.docc/Guide.md#gone",
                         "README.md:1: link to Sources/Thing/Thing.docc/Nope.md: no such file"] {
            #expect(result.text.contains(expected), "no \(expected) in:\n\(result.text)")
        }
        #expect(!result.text.contains("#real-section"), "\(result.text)")
    }
}
