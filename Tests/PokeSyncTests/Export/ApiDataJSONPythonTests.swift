import Foundation
import Testing
@testable import PokeSyncCore

/// The api-data renderer against Python itself: `json.dumps(json.loads(text), indent=4,
/// sort_keys=True)` is what upstream's files are, so on any document the two must agree.
@Suite("api-data JSON against Python")
struct ApiDataJSONPythonTests {
    /// Runs Python once over `documents` and returns its rendering of each.
    /// - Parameter baseURL: when set, the text first goes through ditto's own
    ///   `apply_base_url` (the Python of `DittoOracle`), as `ditto transform` does.
    static func python(_ documents: [[UInt8]], baseURL: String? = nil) async throws -> [[UInt8]] {
        try await withTemporaryDirectory { folder in
            for (index, document) in documents.enumerated() {
                try Data(document).write(to: folder.appendingPathComponent("\(index).json"))
            }
            let script = """
                import json, os, sys
                folder, count, base = sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None
                if base is not None:
                    from pokeapi_ditto.common import apply_base_url
                    if base.endswith("/"): base = base[:-1]
                for index in range(count):
                    with open(os.path.join(folder, "%d.json" % index), "rb") as f: data = f.read()
                    if base is not None: data = apply_base_url(data.decode("utf-8"), base)
                    text = json.dumps(json.loads(data), indent=4, sort_keys=True)
                    with open(os.path.join(folder, "%d.out" % index), "wb") as f: f.write(text.encode("ascii"))
                """
            let python = baseURL == nil ? "python3" : dittoPython
            let result = try await runProgram(python, ["-c", script, folder.path, String(documents.count)] + (baseURL.map { [$0] } ?? []))
            try #require(result.status == 0, "\(result.stderr)")
            return try documents.indices.map { Array(try Data(contentsOf: folder.appendingPathComponent("\($0).out"))) }
        }
    }

    /// ditto's own interpreter, with pokeapi_ditto importable.
    static let dittoPython = DittoOracle.python ?? "python3"
    static let hasDitto = DittoOracle.python != nil

    @Test("random documents: the same bytes as Python, from the raw text and from the canonical form")
    func randomDocuments() async throws {
        var generator = RandomJSON(seed: 0x5EED_A11D)
        let documents = (0 ..< 400).map { _ in generator.document() }
        let expected = try await Self.python(documents)
        let writer = ApiDataJSONWriter()
        var checked = 0
        for (document, python) in zip(documents, expected) {
            let text = String(decoding: document, as: UTF8.self)
            var direct: [UInt8] = []
            try document.withUnsafeBytes { try writer.render($0, appendingTo: &direct) }
            #expect(direct == python, "\(text)")
            let canonical = try CanonicalJSON.canonicalize(document, collectUnder: nil).bytes
            #expect(try ApiDataJSON.render(canonical) == python, "canonical of \(text)")
            checked += 1
        }
        #expect(checked == 400)
    }

    @Test("the fixture files with a base URL: what ditto's apply_base_url then json.dumps gives",
          .enabled(if: hasDitto, DittoOracle.skipMessage))
    func baseURLAsDitto() async throws {
        let files = try ApiDataJSONTests.fixtureFiles().map(\.bytes)
        for baseURL in ["https://mirror.example", "http://127.0.0.1:8080/pokeapi/"] {
            let expected = try await Self.python(files, baseURL: baseURL)
            let writer = ApiDataJSONWriter(baseURL: baseURL)
            for (file, python) in zip(files, expected) {
                let canonical = try CanonicalJSON.canonicalize(file, collectUnder: nil).bytes
                var rendered: [UInt8] = []
                try canonical.withUnsafeBytes { try writer.render($0, appendingTo: &rendered) }
                #expect(rendered == python)
            }
        }
    }
}

/// Random JSON text that exercises every rule of Python's encoder: keys out of order,
/// equal keys, escaped keys, characters from every range (controls, DEL, BMP, astral) raw
/// or escaped in every way, integers (-0, huge), floats in both notations, whitespace.
struct RandomJSON {
    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    static let keys = ["a", "b", "B", "z", "aa", "", "id", "name", "url", "é", "e\u{301}", "Z", "_", "a b",
                       "\u{FFFF}", "😀", "日本", "\"", "\\", "\u{7F}", "\u{1F}", "/"]
    static let characters: [Unicode.Scalar] = ["a", "Z", "0", " ", "~", "/", "\"", "\\", "\u{0}", "\u{8}", "\u{9}", "\u{A}",
                                               "\u{C}", "\u{D}", "\u{1F}", "\u{7F}", "\u{80}", "é", "\u{FF}", "\u{100}",
                                               "\u{2028}", "日", "\u{FFFF}", "\u{10000}", "😀", "\u{10FFFF}"]
    static let floats = ["1.5", "0.1", "-0.0", "0.0", "1e16", "1E+16", "1e15", "1e-5", "1.0e-4", "0.0001", "100.0",
                         "123456789012345678.0", "1e400", "-1e400", "5e-324", "2.5e-310", "1.7976931348623157e308",
                         "1e22", "0e0", "3.14159265358979323846", "9007199254740993.0", "-2.5E-3", "12.34e+5"]

    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

    mutating func document() -> [UInt8] {
        var text = ""
        value(depth: 0, into: &text)
        return Array(text.utf8)
    }

    mutating func space(_ text: inout String) {
        if chance(10) { text += pick([" ", "\n", "\t", "\r\n  "]) }
    }

    mutating func value(depth: Int, into text: inout String) {
        space(&text)
        switch random.next() % (depth > 4 ? 6 : 9) {
        case 0: text += pick(["true", "false", "null"])
        case 1: text += pick(["0", "-0", "7", "-12", "1025", "10001", "123456789012345678901234567890", "-9223372036854775809"])
        case 2: text += chance(50) ? pick(Self.floats) : randomFloat()
        case 3, 4, 5: string(into: &text, from: (0 ..< random.next() % 12).map { _ in pick(Self.characters) })
        case 6, 7:
            text += "{"
            for index in 0 ..< random.next() % 6 {
                if index > 0 { text += "," }
                space(&text)
                string(into: &text, from: Array(pick(Self.keys).unicodeScalars))
                space(&text)
                text += ":"
                value(depth: depth + 1, into: &text)
            }
            space(&text)
            text += "}"
        default:
            text += "["
            for index in 0 ..< random.next() % 6 {
                if index > 0 { text += "," }
                value(depth: depth + 1, into: &text)
            }
            space(&text)
            text += "]"
        }
        space(&text)
    }

    mutating func randomFloat() -> String {
        let sign = chance(30) ? "-" : ""
        let whole = String(random.next() % (chance(50) ? 10 : 1_000_000_000))
        let fraction = chance(70) ? "." + String(random.next() % 100_000_000_000) : ""
        let exponent = fraction.isEmpty || chance(50) ? pick(["e", "E"]) + pick(["", "+", "-"]) + String(random.next() % 330) : ""
        return sign + whole + fraction + exponent
    }

    /// Writes a JSON string of `scalars`, each raw or escaped (any valid way, hex in either case).
    mutating func string(into text: inout String, from scalars: [Unicode.Scalar]) {
        text += "\""
        for scalar in scalars {
            let value = scalar.value
            let mustEscape = value < 0x20 || scalar == "\"" || scalar == "\\"
            if !mustEscape && chance(60) {
                text.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\"": text += chance(50) ? "\\\"" : "\\u0022"; continue
            case "\\": text += chance(50) ? "\\\\" : "\\u005C"; continue
            case "/": text += "\\/"; continue
            case "\n": text += chance(50) ? "\\n" : "\\u000a"; continue
            case "\u{8}": text += "\\b"; continue
            default: break
            }
            if value >= 0x10000 {
                text += hex(0xD800 + ((value - 0x10000) >> 10)) + hex(0xDC00 + ((value - 0x10000) & 0x3FF))
            } else {
                text += hex(value)
            }
        }
        text += "\""
    }

    /// `\u` and four hex digits, in upper or lower case.
    mutating func hex(_ unit: UInt32) -> String {
        let digits = String(unit, radix: 16, uppercase: chance(50))
        return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
