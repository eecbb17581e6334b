import Foundation
import Testing
@testable import PokeSyncCore

@Suite("Canonical JSON")
struct CanonicalJSONTests {
    /// A real pretty-printed api-data document (pokemon 789, cosmog), relative URLs.
    static let fixtureURL = TestPaths.fixtures.appendingPathComponent("canonical/pokemon-789.json")

    static func fixture() throws -> [UInt8] {
        Array(try Data(contentsOf: fixtureURL))
    }

    /// Has Python render the fixture as pokeapi.co serves it: minified, absolute URLs.
    /// - Parameter asciiOnly: `ensure_ascii`, and every "/" written as `\/`.
    static func pythonRendering(origin: String, asciiOnly: Bool) async throws -> [UInt8] {
        let script = """
            import json, sys
            def absolute(x):
                if isinstance(x, dict): return {k: absolute(v) for k, v in x.items()}
                if isinstance(x, list): return [absolute(v) for v in x]
                if isinstance(x, str) and x.startswith("/api/v2/"): return sys.argv[2] + x
                return x
            doc = absolute(json.load(open(sys.argv[1], encoding="utf-8")))
            ascii_only = sys.argv[3] == "1"
            text = json.dumps(doc, ensure_ascii=ascii_only, separators=(",", ":"))
            if ascii_only: text = text.replace("/", "\\\\/")
            sys.stdout.buffer.write(text.encode("utf-8"))
            """
        let result = try await runProgram("python3", ["-c", script, fixtureURL.path, origin, asciiOnly ? "1" : "0"])
        #expect(result.status == 0, "\(result.stderr)")
        return Array(result.stdout)
    }

    /// The same JSON value, compared through JSONSerialization with sorted keys.
    static func sameValue(_ left: [UInt8], _ right: [UInt8]) throws -> Bool {
        func normalized(_ bytes: [UInt8]) throws -> Data {
            let object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        }
        return try normalized(left) == normalized(right)
    }

    static func canonical(_ text: String, stripPrefix: String? = nil) throws -> String {
        let document = try CanonicalJSON.canonicalize(Array(text.utf8), stripPrefix: stripPrefix)
        return String(decoding: document.bytes, as: UTF8.self)
    }

    static func failure(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try CanonicalJSON.canonicalize(bytes)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Real documents

    @Test("pretty api-data and minified absolute renderings give the same bytes")
    func renderingsAgree() async throws {
        let pretty = try CanonicalJSON.canonicalize(Self.fixture())
        #expect(pretty.bytes.count < 19_211 * 2 / 3)
        for origin in ["https://pokeapi.co", "http://127.0.0.1:8080"] {
            for asciiOnly in [false, true] {
                let served = try await Self.pythonRendering(origin: origin, asciiOnly: asciiOnly)
                #expect(served != pretty.bytes)
                let stripped = try CanonicalJSON.canonicalize(served, stripPrefix: origin)
                #expect(stripped == pretty, "origin \(origin), ensure_ascii \(asciiOnly)")
                // Any origin in front of /api/v2/ goes, the source's own or not.
                #expect(try CanonicalJSON.canonicalize(served) == pretty)
                #expect(try CanonicalJSON.canonicalize(served, stripPrefix: "https://elsewhere.example") == pretty)
            }
        }
    }

    @Test("output parses to the same value as the input, and again to the same bytes")
    func outputIsFaithfulAndIdempotent() async throws {
        let input = try Self.fixture()
        let document = try CanonicalJSON.canonicalize(input)
        #expect(try Self.sameValue(document.bytes, input))
        #expect(!document.bytes.contains(0x0A))
        #expect(document.bytes.starts(with: Array(#"{"abilities":[{"ability":{"name":"#.utf8)))
        let again = try CanonicalJSON.canonicalize(document.bytes)
        #expect(again == document)

        let served = try await Self.pythonRendering(origin: "https://pokeapi.co", asciiOnly: true)
        let stripped = try CanonicalJSON.canonicalize(served, stripPrefix: "https://pokeapi.co")
        #expect(try Self.sameValue(stripped.bytes, input))
        #expect(try CanonicalJSON.canonicalize(stripped.bytes, stripPrefix: "https://pokeapi.co") == stripped)
    }

    @Test("id, name and sprite URLs of a real pokemon")
    func realPokemonFacts() throws {
        let document = try CanonicalJSON.canonicalize(Self.fixture())
        #expect(document.id == 789)
        #expect(document.name == "cosmog")
        let base = "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon"
        #expect(document.collected.count == 25)
        #expect(document.collected.first == CollectedString(path: "back_default", value: "\(base)/back/789.png"))
        #expect(document.collected.contains(CollectedString(
            path: "other/official-artwork/front_default", value: "\(base)/other/official-artwork/789.png")))
        #expect(document.collected.last?.path == "versions/generation-viii/icons/front_default")
        #expect(document.collected.allSatisfy { $0.value.hasPrefix(base) })
        #expect(try CanonicalJSON.canonicalize(Self.fixture(), collectUnder: nil).collected.isEmpty)
    }

    @Test("collected paths match a JSONSerialization walk of sprites")
    func collectedMatchesSerializationWalk() throws {
        let input = try Self.fixture()
        let root = try #require(try JSONSerialization.jsonObject(with: Data(input)) as? [String: Any])
        var expected: [CollectedString] = []
        func walk(_ value: Any, _ path: [String]) {
            if let object = value as? [String: Any] {
                for (key, member) in object { walk(member, path + [key]) }
            } else if let array = value as? [Any] {
                for (index, element) in array.enumerated() { walk(element, path + [String(index)]) }
            } else if let string = value as? String {
                expected.append(CollectedString(path: path.joined(separator: "/"), value: string))
            }
        }
        walk(root["sprites"] as Any, [])
        let collected = try CanonicalJSON.canonicalize(input).collected
        #expect(!expected.isEmpty)
        // JSONSerialization's dictionaries are unordered; the scanner's order is checked elsewhere.
        let byPath = { (left: CollectedString, right: CollectedString) in left.path < right.path }
        #expect(collected.sorted(by: byPath) == expected.sorted(by: byPath))
    }

    @Test("a real document cut at every 97th byte is rejected as truncated")
    func truncatedRealDocument() throws {
        for input in [try Self.fixture(), try CanonicalJSON.canonicalize(Self.fixture()).bytes] {
            var cuts = 0
            for length in stride(from: 0, to: input.count, by: 97) {
                let error = Self.failure(Array(input[..<length]))
                #expect(error?.isTruncation == true, "cut at \(length): \(String(describing: error))")
                cuts += 1
            }
            #expect(cuts > 50)
            #expect(Self.failure(input) == nil)
        }
        let error = try #require(Self.failure(Array(try Self.fixture()[..<1234])))
        #expect(error.description == "invalid JSON at byte 1234: unexpected end of input")
        #expect(error.exitStatus == .dataError)
    }

    // MARK: - Canonical form rules

    @Test("strings: escapes reduced to the canonical set, raw UTF-8 kept")
    func stringRules() throws {
        let escaped = #"["\u0001\u0008\u001F\/\u00e9\ud83d\ude00\u0022\u005C\u000a\n\"\\", "Pok\u00E9mon Flab\u00e9b\u00e9 \u2640"]"#
        let canonical = #"["\u0001\b\u001f/é😀\"\\\n\n\"\\","Pokémon Flabébé ♀"]"#
        #expect(try Self.canonical(escaped) == canonical)
        #expect(try Self.canonical(canonical) == canonical)
        #expect(try Self.canonical("[\"\u{7F}\u{10FFFF}\"]") == "[\"\u{7F}\u{10FFFF}\"]")
        #expect(try Self.sameValue(Array(canonical.utf8), Array(escaped.utf8)))
    }

    @Test("pretty and minified renderings of a document with escapes agree")
    func escapedRenderingsAgree() throws {
        let pretty = #"""
            {
                "flavor_text": "Pok\u00e9mon\nqui \u00ab\u00a0dort\u00a0\u00bb",
                "id": 25,
                "name": "pikachu",
                "url": "/api/v2/pokemon-species/25/",
                "sprites": {"other": {"home": {"front_default": "https:\/\/raw.githubusercontent.com\/x.png"}}}
            }

            """#
        let minified = #"{"flavor_text":"Pokémon\nqui "# + "\u{AB}\u{A0}dort\u{A0}\u{BB}" + #"","id":25,"name":"pikachu","#
            + #""url":"https://pokeapi.co/api/v2/pokemon-species/25/","#
            + #""sprites":{"other":{"home":{"front_default":"https://raw.githubusercontent.com/x.png"}}}}"#
        let fromPretty = try CanonicalJSON.canonicalize(Array(pretty.utf8))
        let fromMinified = try CanonicalJSON.canonicalize(Array(minified.utf8), stripPrefix: "https://pokeapi.co/")
        #expect(fromPretty == fromMinified)
        #expect(fromPretty.name == "pikachu")
        #expect(fromPretty.collected == [CollectedString(path: "other/home/front_default",
                                                         value: "https://raw.githubusercontent.com/x.png")])
    }

    @Test("numbers are copied as written and literals validated")
    func numbersAndLiterals() throws {
        let text = "[ 0, -0, 1.50, -12.5e+3, 1E-2, 0.0e0, 123456789012345678901234567890, true, false, null ]"
        #expect(try Self.canonical(text) == "[0,-0,1.50,-12.5e+3,1E-2,0.0e0,123456789012345678901234567890,true,false,null]")
        #expect(try Self.canonical("  42\n") == "42")
    }

    @Test("the API prefix is stripped from values only, after unescaping")
    func prefixStripping() throws {
        let input = #"{"https://pokeapi.co/api/v2/k": "https://pokeapi.co/api/v2/pokemon/1/", "#
            + #""a": "https:\/\/pokeapi.co\/api\/v2\/x", "b": "https://pokeapi.co/api/v2", "#
            + #""c": "https://pokeapi.co.evil/api/v2/y", "d": ["https://pokeapi.co/api/v2/"], "#
            + #""e": "see https://pokeapi.co/api/v2/z"}"#
        let expected = #"{"https://pokeapi.co/api/v2/k":"/api/v2/pokemon/1/","a":"/api/v2/x","#
            + #""b":"https://pokeapi.co/api/v2","c":"/api/v2/y","d":["/api/v2/"],"#
            + #""e":"see https://pokeapi.co/api/v2/z"}"#
        #expect(try Self.canonical(input, stripPrefix: "https://pokeapi.co") == expected)
        #expect(try Self.canonical(expected, stripPrefix: "https://pokeapi.co") == expected)
        #expect(try Self.canonical(#"["http://127.0.0.1:8080/api/v2/a/"]"#, stripPrefix: "http://127.0.0.1:8080")
                == #"["/api/v2/a/"]"#)
        #expect(try Self.canonical(#"["/api/v2/a/"]"#, stripPrefix: "") == #"["/api/v2/a/"]"#)
    }

    /// Behind a reverse proxy the server names whatever host it was asked for.
    @Test("any http(s) origin in front of /api/v2/ is stripped, whatever host or port it names")
    func anyOriginStripping() throws {
        let input = #"{"a": "http://127.0.0.1:8000/api/v2/pokemon/1/", "b": "http://internal:8000/api/v2/", "#
            + #""c": "HTTPS://Other.Example/api/v2/x?y=1", "d": "https:\/\/[::1]:9\/api\/v2\/z", "#
            + #""e": "https://raw.githubusercontent.com/PokeAPI/sprites/1.png", "f": "http://h/api/v1/x", "#
            + #""g": "ftp://h/api/v2/x", "h": "http:///api/v2/x", "i": "http://u@h/api/v2/x", "#
            + #""j": "http://h/api/v2", "k": "http://h?q/api/v2/x", "l": "http://h/p/api/v2/x"}"#
        let expected = #"{"a":"/api/v2/pokemon/1/","b":"/api/v2/","c":"/api/v2/x?y=1","d":"/api/v2/z","#
            + #""e":"https://raw.githubusercontent.com/PokeAPI/sprites/1.png","f":"http://h/api/v1/x","#
            + #""g":"ftp://h/api/v2/x","h":"http:///api/v2/x","i":"http://u@h/api/v2/x","#
            + #""j":"http://h/api/v2","k":"http://h?q/api/v2/x","l":"http://h/p/api/v2/x"}"#
        for prefix: String? in [nil, "", "https://pokeapi.co", "http://127.0.0.1:8080"] {
            #expect(try Self.canonical(input, stripPrefix: prefix) == expected)
            #expect(try Self.canonical(expected, stripPrefix: prefix) == expected)
        }
        // The same document served through two hosts hashes the same.
        let direct = try CanonicalJSON.canonicalize(Array(#"{"id":1,"u":"http://127.0.0.1:8000/api/v2/a/1/"}"#.utf8),
                                                    stripPrefix: "http://127.0.0.1:8000")
        let proxied = try CanonicalJSON.canonicalize(Array(#"{"id":1,"u":"http://internal:8000/api/v2/a/1/"}"#.utf8),
                                                     stripPrefix: "https://pokedex.example")
        #expect(direct.bytes == proxied.bytes)
    }

    @Test("id, name and collected values follow the top-level rules")
    func topLevelFacts() throws {
        let input = #"{"id": 7, "name": "squirtle", "sprites": {"a": null, "b": "x", "#
            + #""c": {"d": ["p", null, {"e\"f": "q"}], "g": 1, "h": true}, "a\/b": "r"}, "#
            + #""other": {"id": 9, "name": "n", "sprites": {"z": "no"}}}"#
        let document = try CanonicalJSON.canonicalize(Array(input.utf8))
        #expect(document.id == 7)
        #expect(document.name == "squirtle")
        #expect(document.collected == [
            CollectedString(path: "b", value: "x"), CollectedString(path: "c/d/0", value: "p"),
            CollectedString(path: "c/d/2/e\"f", value: "q"), CollectedString(path: "a/b", value: "r"),
        ])
        let underOther = try CanonicalJSON.canonicalize(Array(input.utf8), collectUnder: "other")
        #expect(underOther.collected.map(\.path) == ["name", "sprites/z"])
        let list = try CanonicalJSON.canonicalize(Array(#"{"sprites": ["u", ["v"]], "n": "w"}"#.utf8))
        #expect(list.collected == [CollectedString(path: "0", value: "u"), CollectedString(path: "1/0", value: "v")])
        for odd in [#"{"id": 25.0}"#, #"{"id": "25"}"#, #"{"id": 1e2}"#, #"{"id": 99999999999999999999}"#,
                    #"{"a": {"id": 1}}"#, #"[{"id": 1}]"#] {
            #expect(try CanonicalJSON.canonicalize(Array(odd.utf8)).id == nil, "\(odd)")
        }
        #expect(try CanonicalJSON.canonicalize(Array(#"{"id": -3, "name": 4}"#.utf8)).id == -3)
        #expect(try CanonicalJSON.canonicalize(Array(#"{"id": -3, "name": 4}"#.utf8)).name == nil)
        #expect(try CanonicalJSON.canonicalize(Array(#"{"name": "Flab\u00e9b\u00e9"}"#.utf8)).name == "Flabébé")
    }

    // MARK: - Broken and hostile input

    @Test("every cut of a document with escapes and multi-byte UTF-8 is a truncation")
    func everyCutIsTruncation() throws {
        let input = Array(#"{"a": [1.5e-3, "\ud83d\ude00 é😀\n", true, {"b": null}], "c": -12}"#.utf8)
        #expect(Self.failure(input) == nil)
        for length in 0..<input.count {
            let error = Self.failure(Array(input[..<length]))
            #expect(error?.isTruncation == true, "cut at \(length): \(String(describing: error))")
        }
        #expect(Self.failure(Array("   \n".utf8))?.isTruncation == true)
    }

    @Test("hostile inputs are rejected without crashing", arguments: [
        ("lone high surrogate", #"["\ud800"]"#),
        ("high surrogate then letter", #"["\ud800x"]"#),
        ("high surrogate then non-low escape", #"["\ud800\u0041"]"#),
        ("high surrogate then other escape", #"["\ud800\ndc00"]"#),
        ("lone low surrogate", #"["\udc00"]"#),
        ("unknown escape", #"["\x"]"#),
        ("upper-case u escape", #"["\U0041"]"#),
        ("bad hex digit", #"["\u12G4"]"#),
        ("trailing garbage", "{} x"),
        ("two values", "{}{}"),
        ("two numbers", "1 2"),
        ("leading zero", "[01]"),
        ("negative leading zero", "[-01]"),
        ("double zero", "[00]"),
        ("bare decimal point", "[1.]"),
        ("missing integer part", "[.5]"),
        ("plus sign", "[+1]"),
        ("empty exponent", "[1e+]"),
        ("lone minus", "[-]"),
        ("raw control character", "[\"a\u{01}b\"]"),
        ("raw tab in string", "[\"a\tb\"]"),
        ("raw newline in string", "[\"a\nb\"]"),
        ("trailing comma in array", "[1,]"),
        ("trailing comma in object", #"{"a":1,}"#),
        ("key without value", #"{"a"}"#),
        ("number as key", "{1:2}"),
        ("bad literal", "[nul]"),
        ("capitalised literal", "[True]"),
        ("single quotes", "['a']"),
        ("mismatched closer", "[1}"),
        ("stray closer", "]"),
    ])
    func hostileText(label: String, text: String) {
        let error = Self.failure(Array(text.utf8))
        #expect(error != nil, "\(label) accepted")
        #expect(error?.isTruncation == false, "\(label): \(String(describing: error))")
    }

    @Test("invalid UTF-8 in strings is rejected", arguments: [
        [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xC3, 0x28], [0xE2, 0x82, 0x28],
    ] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) {
        let error = Self.failure([0x5B, 0x22, 0x61] + sequence + [0x22, 0x5D])
        #expect(error?.isTruncation == false, "\(sequence): \(String(describing: error))")
    }

    @Test("nesting up to 256 levels is accepted, 257 is not")
    func nestingLimit() throws {
        let deepest = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(try Self.canonical(deepest) == deepest)
        let tooDeep = "[" + deepest + "]"
        let error = try #require(Self.failure(Array(tooDeep.utf8)))
        #expect(error.offset == 256)
        #expect(error.reason == "nesting deeper than 256")
        for hostile in [String(repeating: "[", count: 100_000), String(repeating: #"{"a":"#, count: 100_000)] {
            let error = Self.failure(Array(hostile.utf8))
            #expect(error?.reason == "nesting deeper than 256")
            #expect(error?.isTruncation == false)
        }
    }

    @Test("inputs over the size limit are rejected unread")
    func sizeLimit() throws {
        let input = Array(#"{"a": "bcdefgh"}"#.utf8)
        #expect(throws: JSONSyntaxError(offset: 10, reason: "document larger than 10 bytes")) {
            try CanonicalJSON.canonicalize(input, maximumSize: 10)
        }
        #expect(try CanonicalJSON.canonicalize(input, maximumSize: input.count).bytes == Array(#"{"a":"bcdefgh"}"#.utf8))
        #expect(try CanonicalJSON.canonicalize(Data(input)).bytes == CanonicalJSON.canonicalize(input).bytes)
    }
}
