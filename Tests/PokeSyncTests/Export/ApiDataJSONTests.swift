import Foundation
import Testing
@testable import PokeSyncCore

/// The api-data renderer on real upstream files (Tests/Fixtures/api-data-json), on the
/// base URL, and on input that is not canonical or not JSON at all.
@Suite("api-data JSON")
struct ApiDataJSONTests {
    /// Real files of the 2026-08-08 api-data tree (Tests/Fixtures/README.md).
    static let fixtureRoot = TestPaths.fixtures.appendingPathComponent("api-data-json", isDirectory: true)

    /// Every fixture file's path below `fixtureRoot`, and its bytes.
    static func fixtureFiles() throws -> [(path: String, bytes: [UInt8])] {
        let paths = try #require(FileManager.default.subpathsOfDirectory(atPath: fixtureRoot.path) as [String]?)
        return try paths.filter { $0.hasSuffix(".json") }.sorted().map { path in
            (path, Array(try Data(contentsOf: fixtureRoot.appendingPathComponent(path))))
        }
    }

    static func render(_ text: String, baseURL: String? = nil) throws -> String {
        String(decoding: try ApiDataJSON.render(Array(text.utf8), baseURL: baseURL), as: UTF8.self)
    }

    @Test("canonicalized real files render to their own bytes")
    func fixturesRoundTrip() throws {
        let files = try Self.fixtureFiles()
        #expect(files.count == 14)
        let writer = ApiDataJSONWriter()
        for (path, bytes) in files {
            let canonical = try CanonicalJSON.canonicalize(bytes, collectUnder: nil).bytes
            #expect(canonical.count <= bytes.count)
            var rendered: [UInt8] = []
            try canonical.withUnsafeBytes { try writer.render($0, appendingTo: &rendered) }
            #expect(rendered == bytes, "\(path)")
            // Upstream's own pretty file renders the same (whitespace is only skipped).
            #expect(try ApiDataJSON.render(bytes) == bytes, "\(path) as is")
        }
    }

    @Test("members come out sorted by code point whatever order the store kept")
    func unsortedMembers() throws {
        #expect(try Self.render(#"{"b":1,"a":{"z":[],"y":{}},"A":null,"é":true,"e":false}"#) == """
            {
                "A": null,
                "a": {
                    "y": {},
                    "z": []
                },
                "b": 1,
                "e": false,
                "\\u00e9": true
            }
            """)
        // Escaped keys compare by the text they stand for: ! " \ é U+FFFF U+1F600.
        #expect(try Self.render(#"{"\"":1,"!":2,"\u00e9":3,"\\":4,"😀":5,"\uffff":6}"#) == """
            {
                "!": 2,
                "\\"": 1,
                "\\\\": 4,
                "\\u00e9": 3,
                "\\uffff": 6,
                "\\ud83d\\ude00": 5
            }
            """)
        // Equal keys: the last value wins, as in a Python dict.
        #expect(try Self.render(#"{"b":1,"a":2,"b":3,"\u0062":4}"#) == "{\n    \"a\": 2,\n    \"b\": 4\n}")
        #expect(try Self.render(#"{"a":1,"a":2}"#) == "{\n    \"a\": 2\n}")
    }

    @Test("scalars, escapes and numbers as Python writes them")
    func scalars() throws {
        #expect(try Self.render("[]") == "[]")
        #expect(try Self.render("{}") == "{}")
        #expect(try Self.render(" [ 1 , [ ] , { } ] ") == "[\n    1,\n    [],\n    {}\n]")
        #expect(try Self.render(#""\/a\u0041\u00E9\b\f\n\r\t\"\\\u0001\u007f""#)
                == #""/aA\u00e9\b\f\n\r\t\"\\\u0001\u007f""#)
        #expect(try Self.render("\"\u{7F}\u{80}\u{FFFF}\u{10FFFF}\"") == #""\u007f\u0080\uffff\udbff\udfff""#)
        // Lone surrogates are kept (json.loads keeps them), in lower case.
        #expect(try Self.render(#""\uD800x\uDFFF""#) == #""\ud800x\udfff""#)
        #expect(try Self.render("[-0,0,-12,123456789012345678901234567890]")
                == "[\n    0,\n    0,\n    -12,\n    123456789012345678901234567890\n]")
        #expect(try Self.render("[1.50,1E2,-0.0,1e16,1e15,1e-5,0.0001,1e400,-1e400,5e-324,0.1]") == """
            [
                1.5,
                100.0,
                -0.0,
                1e+16,
                1000000000000000.0,
                1e-05,
                0.0001,
                Infinity,
                -Infinity,
                5e-324,
                0.1
            ]
            """)
        #expect(try Self.render("true") == "true")
        #expect(try Self.render(" null\n") == "null")
    }

    @Test("--base-url puts the URL in front of /api/v2 and /schema/v2 values, never keys")
    func baseURL() throws {
        let document = #"{"/api/v2/k":"/api/v2/pokemon/1/","b":["/schema/v2/name.json","/api/v2","x/api/v2/","/apiv2/"],"c":"/api/v2/é"}"#
        let expected = """
            {
                "/api/v2/k": "https://mirror.example/p/api/v2/pokemon/1/",
                "b": [
                    "https://mirror.example/p/schema/v2/name.json",
                    "https://mirror.example/p/api/v2",
                    "x/api/v2/",
                    "/apiv2/"
                ],
                "c": "https://mirror.example/p/api/v2/\\u00e9"
            }
            """
        #expect(try Self.render(document, baseURL: "https://mirror.example/p") == expected)
        #expect(try Self.render(document, baseURL: "https://mirror.example/p/") == expected)
        // ditto strips one trailing slash, not more.
        #expect(try Self.render(#""/api/v2/""#, baseURL: "http://h//") == #""http://h//api/v2/""#)
        // The URL itself is written as upstream writes strings.
        #expect(try Self.render(#""/api/v2/""#, baseURL: "http://bücher.example/\"") == #""http://b\u00fccher.example/\"/api/v2/""#)
        #expect(try Self.render(#""/api/v2/""#, baseURL: "") == #""/api/v2/""#)
        #expect(try Self.render(#""/api/v2/""#, baseURL: nil) == #""/api/v2/""#)
    }

    @Test("not JSON: an error, never a crash")
    func invalidInput() throws {
        let bad = ["", " ", "{", "[", "[1,", "{\"a\"", "{\"a\":", "{\"a\" 1}", "{1:2}", "[1 2]", "[1,]", "{\"a\":1,}",
                   "01", "-", "1.", "1e", "1e+", "tru", "nul", "\"abc", "\"\\", "\"\\u12", "\"\\u12g4\"", "\"\\x\"",
                   "\"\u{01}\"", "[]]", "{}x", "[1}", "{\"a\":1]", "\u{FEFF}1", "NaN", "Infinity"]
        for text in bad {
            #expect(throws: JSONSyntaxError.self, "\(text.debugDescription)") { try Self.render(text) }
        }
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF0, 0x9F]] {
            #expect(throws: JSONSyntaxError.self) { try ApiDataJSON.render(bytes) }
        }
        // Every cut of a real file is refused.
        let (_, file) = try #require(try Self.fixtureFiles().first { $0.path.hasSuffix("move/10013/index.json") })
        let canonical = try CanonicalJSON.canonicalize(file, collectUnder: nil).bytes
        for length in 0 ..< canonical.count {
            #expect(throws: JSONSyntaxError.self) { try ApiDataJSON.render(Array(canonical[..<length])) }
        }
    }

    @Test("nesting far deeper than the store allows renders without recursion")
    func deepNesting() throws {
        #expect(try Self.render("[[[1]]]") == "[\n    [\n        [\n            1\n        ]\n    ]\n]")
        let depth = 1_000
        let text = String(repeating: "[{\"a\":", count: depth) + "0" + String(repeating: "}]", count: depth)
        let rendered = try ApiDataJSON.render(Array(text.utf8))
        // Level n's line holds 4n spaces: the rendering grows with the square of the depth.
        let lines = rendered.split(separator: 0x0A)
        #expect(lines.count == 4 * depth + 1)
        #expect(lines[2 * depth].count == 4 * 2 * depth + #""a": 0"#.count)
        #expect(rendered.last == UInt8(ascii: "]"))
    }

    @Test("one writer renders many documents as fresh ones do")
    func writerReuse() throws {
        let files = try Self.fixtureFiles()
        let writer = ApiDataJSONWriter(baseURL: "http://h")
        var all: [UInt8] = []
        var expected: [UInt8] = []
        for (_, bytes) in files.reversed() + files {
            try bytes.withUnsafeBytes { try writer.render($0, appendingTo: &all) }
            expected += try ApiDataJSON.render(bytes, baseURL: "http://h")
            // The closure form hands out the same bytes.
            let viaClosure = try bytes.withUnsafeBytes { try writer.render($0) { Array($0) } }
            #expect(viaClosure == expected.suffix(viaClosure.count))
        }
        #expect(all == expected)
        #expect(String(decoding: all, as: UTF8.self).contains(#""url": "http://h/api/v2/"#))
    }
}
