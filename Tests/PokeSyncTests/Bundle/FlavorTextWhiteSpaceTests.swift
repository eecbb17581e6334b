import Foundation
import PokeSQLite
import Testing
@testable import PokeSyncCore

/// <doc:PokedexReader/DeviceDatabase#Flavor-texts> trims flavor texts of Unicode White_Space at both ends, not only of
/// U+0020. Japanese texts of the 2026 snapshots end in the ideographic space (U+3000),
/// and some Japanese move texts start with a narrow no-break space (U+202F).
@Suite("Flavor texts trimmed of Unicode White_Space")
struct FlavorTextWhiteSpaceTests {
    /// Species 636 (larvesta) in ultra-moon, Japanese, as the 2026-07-29 and 2026-08-08
    /// snapshots have it: it ends in U+3000.
    static let larvesta = "炎を\u{3000}使って\u{3000}身を\u{3000}守る。\n昔の\u{3000}人々は\u{3000}太陽に\n巣が\u{3000}あると\u{3000}信じていた。\u{3000}"
    static let larvestaCleaned = "炎を\u{3000}使って\u{3000}身を\u{3000}守る。昔の\u{3000}人々は\u{3000}太陽に巣が\u{3000}あると\u{3000}信じていた。"
    /// Move 607's start in omega-ruby-alpha-sapphire (kana): U+202F, then U+3000 inside.
    static let narrowStart = "\u{202F}かたの\u{3000}ちからを\u{3000}ぬいて\n"

    @Test func larvestasTextLosesItsIdeographicSpace() {
        #expect(FlavorTextRule.clean(Self.larvesta) == Self.larvestaCleaned)
        #expect(FlavorTextRule.clean(Self.narrowStart) == "かたの\u{3000}ちからを\u{3000}ぬいて")
        // Every White_Space character goes at the ends; inside, only U+0020 runs change.
        #expect(FlavorTextRule.clean("\u{3000}\u{00A0}\t a\u{3000}\u{3000}b \u{2029}\u{0085}\u{205F}") == "a\u{3000}\u{3000}b")
        #expect(FlavorTextRule.clean("\u{3000} \u{3000}") == "")
        // Not White_Space: a zero-width space and an ideographic full stop stay.
        #expect(FlavorTextRule.clean("\u{200B}。") == "\u{200B}。")
    }

    /// The Python oracle behind the test databases (reference_tables.clean, which
    /// make_device_db.py uses) gives the same texts.
    @Test func thePythonOracleAgrees() async throws {
        let texts = [Self.larvesta, Self.narrowStart, "\u{3000}\u{00A0}\t a\u{3000}\u{3000}b \u{2029}\u{0085}\u{205F}",
                     "\u{1C}x\u{1F}", " Pika\u{00AD}\nchu\u{0C}is  here\r\nnow\n"]
        try await withTemporaryDirectory { scratch in
            let input = scratch.appendingPathComponent("texts.json")
            try JSONSerialization.data(withJSONObject: texts).write(to: input)
            let python = try PythonInterpreter.path.get()
            let output = try await runTool(python.path, ["-c", """
                import json, sys
                sys.path.insert(0, sys.argv[1])
                import reference_tables
                print(json.dumps([reference_tables.clean(t) for t in json.load(open(sys.argv[2], encoding="utf-8"))]))
                """, TestPaths.support.path, input.path])
            let cleaned = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String])
            #expect(cleaned == texts.map(FlavorTextRule.clean))
            // U+001C-U+001F are not White_Space (Python's str.strip() would take them).
            #expect(cleaned[3] == "\u{1C}x\u{1F}")
        }
    }

    /// Built from documents holding such texts, no flavor text row starts or ends with
    /// White_Space; the rows' content changes, so a device gets the fix as an ordinary delta.
    @Test func theDeviceDatabaseKeepsNoWhiteSpaceAtTheEnds() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("api-data")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
            try Self.edit(source, kind: "pokemon-species", id: 25) { species in
                var entries = species["flavor_text_entries"] as! [[String: Any]]
                let index = try #require(entries.firstIndex { Self.name($0["language"]) == "ja" && Self.name($0["version"]) == "ultra-moon" })
                entries[index]["flavor_text"] = Self.larvesta
                species["flavor_text_entries"] = entries
            }
            try Self.edit(source, kind: "ability", id: 9) { ability in
                var entries = ability["flavor_text_entries"] as! [[String: Any]]
                let index = try #require(entries.lastIndex { Self.name($0["language"]) == "ja-hrkt" })
                entries[index]["flavor_text"] = Self.narrowStart + "\u{3000}"
                ability["flavor_text_entries"] = entries
            }
            let fixture = try await DeviceDatabaseFixture(scratch: scratch, source: source)
            let (file, _) = try fixture.build()
            let database = try Database(path: file.path, mode: .readOnly)
            #expect(try database.row("SELECT text FROM species_flavor_text WHERE species_id = 25 AND language = 'ja' AND version = 'ultra-moon'",
                                     []) { $0.text(0) } == Self.larvestaCleaned)
            #expect(try database.row("SELECT flavor_text FROM ability_text WHERE ability_id = 9 AND language = 'ja-hrkt'",
                                     []) { $0.text(0) } == "かたの\u{3000}ちからを\u{3000}ぬいて")
            for (table, column) in [("species_flavor_text", "text"), ("ability_text", "flavor_text"), ("move_text", "flavor_text")] {
                let texts = try database.rows("SELECT \(column) FROM \(table) WHERE \(column) IS NOT NULL") { $0.text(0) }
                #expect(!texts.isEmpty)
                let untrimmed = texts.filter { text in
                    [text.unicodeScalars.first, text.unicodeScalars.last].contains { $0?.properties.isWhitespace == true }
                }
                #expect(untrimmed.isEmpty, "\(table): \(untrimmed.prefix(3))")
            }
        }
    }

    static func name(_ link: Any?) -> String? {
        (link as? [String: Any])?["name"] as? String
    }

    /// Rewrites one document of an api-data folder through `change`.
    static func edit(_ root: URL, kind: String, id: Int, _ change: (inout [String: Any]) throws -> Void) throws {
        let file = TestPaths.document(in: root, kind: kind, id: id)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        try change(&document)
        try JSONSerialization.data(withJSONObject: document).write(to: file)
    }
}
