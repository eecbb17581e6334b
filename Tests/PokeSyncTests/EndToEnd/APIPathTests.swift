import Foundation
import Testing

/// The API's path is declared once, in `APIShape` (`rootPath`, and the forms derived from
/// it): `Tests/Support/check_api_path.py` fails on `api/v2` or `schema/v2` in a one-line
/// string literal of any other Swift file in `Sources/`. Comments and multi-line literals
/// (usage text) may name the path as an example.
@Suite("API path")
struct APIPathTests {
    static let checker = SourceChecker("check_api_path.py", allWell: "the API path is spelled in APIShape alone")

    @Test func theAPIPathIsSpelledInAPIShapeAlone() async throws {
        try await Self.checker.expectRepositoryKeepsTheRule()
    }

    /// The checker is not vacuous: in a tree of its own, the path in a plain, raw or
    /// interpolated literal is found; in APIShape.swift, comments and usage text it is not.
    @Test func theCheckerFindsThePathInLiterals() async throws {
        let code = #"""
            /// `/api/v2/` in a doc comment is an example
            // "api/v2" in a comment is not code
            let a = "https://pokeapi.co/api/v2"
            let b = APIShape.basePath + "/pokemon/"
            let c = "\(base)/api/v2/\(kind)"
            let d = #"{"url":"/api/v2/"}"#
            let e = "x\(f("schema/v2"))y"
            let usage = """
                --source URL   ending in /api/v2
                """
            let g = "apiv2 /api/v3/ pokeapi/v2"
            /* "api/v2" in a block comment */
            let h = "// not a comment: api/v2"
            """#
        let tree: KeyValuePairs<String, String> = [
            "Sources/PokeSyncCore/Source/APIShape.swift": #"package static let rootPath = "/api/v2/""# + "\n",
            "Sources/Thing/Code.swift": code,
        ]
        let result = try await Self.checker.withTree(tree) { try await Self.checker.run($0) }
        #expect(result.status == 1, "\(result.text)\n\(result.stderr)")
        let lines = result.text.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
        #expect(lines == ["Sources/Thing/Code.swift:3:", "Sources/Thing/Code.swift:5:", "Sources/Thing/Code.swift:6:",
                          "Sources/Thing/Code.swift:7:", "Sources/Thing/Code.swift:13:", "5"], "\(result.text)")
    }
}
