import Foundation
import Testing
@testable import PokeSyncCore

/// `ditto analyze`'s schemas, inferred in Swift: checked against ditto itself (the
/// installed pokeapi-ditto and genson) on a cut of real documents and on edge cases
/// the real data does not show (floats, booleans, `anyOf` of objects and arrays).
@Suite("api-data schemas")
struct ApiDataSchemaTests {
    static let environment = ProcessInfo.processInfo.environment

    /// Tests/Fixtures/schema-sample: an api-data tree of 20 real documents.
    static let sample = TestPaths.fixtures.appendingPathComponent("schema-sample", isDirectory: true)

    static let dittoVenv = DittoOracle.venv
    static let skipMessage = DittoOracle.skipMessage

    /// Feeds every `.json` file under `tree/api/v2` to a new inference, canonicalized.
    static func infer(apiData tree: URL) throws -> [ApiDataSchemaFile] {
        let inference = ApiDataSchemaInference()
        for (path, bytes) in try SchemaTreeFiles.canonicalDocuments(apiData: tree) {
            try inference.add(bytes, path: path)
        }
        return inference.files()
    }

    @Test(.enabled(if: dittoVenv != nil, skipMessage))
    func sampleMatchesDitto() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("schema-sample-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let theirs = scratch.appendingPathComponent("ditto"), ours = scratch.appendingPathComponent("ours")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.sample, to: theirs)
        let ditto = try await runProgram(Self.dittoVenv!.appendingPathComponent("bin/ditto").path,
                                   ["analyze", "--data-dir", theirs.path])
        try #require(ditto.status == 0, "ditto analyze failed: \(ditto.stderr)")

        let files = try Self.infer(apiData: Self.sample)
        #expect(files.count == 28)
        try SchemaTreeFiles.write(files, under: ours.appendingPathComponent("schema/v2"))
        let compare = try await runProgram(Self.dittoVenv!.appendingPathComponent("bin/python").path,
                                     ["-c", Self.compareTreesScript, theirs.appendingPathComponent("schema/v2").path,
                                      ours.appendingPathComponent("schema/v2").path])
        #expect(compare.status == 0, "\(compare.text) \(compare.stderr)")
    }

    /// Exit status 0 when the two folders hold the same files with equal JSON values.
    static let compareTreesScript = """
        import json, os, sys
        def files(root):
            return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}
        a, b = sys.argv[1], sys.argv[2]
        fa, fb = files(a), files(b)
        bad = ["missing " + p for p in sorted(fa - fb)] + ["extra " + p for p in sorted(fb - fa)]
        bad += ["differs " + p for p in sorted(fa & fb)
                if json.load(open(os.path.join(a, p))) != json.load(open(os.path.join(b, p)))]
        print("\\n".join(bad))
        sys.exit(1 if bad else 0)
        """

    /// genson and ditto's replacement over a list of JSON texts, as JSON.
    static let gensonScript = """
        import json, sys, orjson
        from genson import SchemaBuilder
        from pokeapi_ditto.commands.analyze import _replace_common_model
        from pokeapi_ditto.commands.models import COMMON_MODELS
        builder = SchemaBuilder()
        for text in json.load(open(sys.argv[1])):
            builder.add_object(orjson.loads(text))
        schema = builder.to_schema()
        for name, model in COMMON_MODELS.items():
            schema = _replace_common_model(schema, name, model)
        ours = json.load(open(sys.argv[2]))
        if ours != schema:
            print("genson:", json.dumps(schema, sort_keys=True))
            print("ours:  ", json.dumps(ours, sort_keys=True))
            sys.exit(1)
        """

    /// Cases the real documents do not exercise, each a list of documents.
    static let edgeCases: [[String]] = [
        ["1", "2.5"], ["1", "true"], ["[1e5, -0, 3E-2]"], ["-0"], ["null"], ["\"x\""], ["{}"], ["[]"],
        [#"{"a": null}"#, #"{"a": {"x": 1}}"#, #"{"a": "s"}"#],
        [#"{"a": []}"#, #"{"a": [[]]}"#],
        [#"{"a": []}"#, #"{"a": [1]}"#, #"{"a": {}}"#, #"{"a": {"k": false}}"#, #"{"a": 1.5}"#],
        [#"{"a": {"k": 1}}"#, #"{"a": [{"k": 1}]}"#],
        [#"[{"k": 1}, [2], "s", null]"#, #"[]"#],
        [#"{"b": 1, "a": 2, "c": 3}"#, #"{"c": 1, "a": 2}"#, #"{"a": 1, "c": 2, "d": 4}"#],
        [#"{"é": 1, "a\"b": 2, "\u00e9x": 3, "Z": 1, "\ud83d\ude00": 1, "a\\b\/c\n": [true]}"#, #"{"Z": null}"#],
        [#"{"name": "x", "url": "/api/v2/a/1/"}"#],
        [#"{"count": 1, "next": null, "previous": null, "results": [{"url": "/api/v2/a/1/"}]}"#],
        [#"{"count": 1, "next": "n", "previous": null, "results": [{"name": "a", "url": "u"}]}"#],
        [#"{"names": [{"language": {"name": "en", "url": "u"}, "name": "x"}], "e": {"chance": 1, "condition_values": [], "max_level": 2, "method": {"name": "m", "url": "u"}, "min_level": 1}}"#],
        [#"{"x": {"name": "a", "url": "u"}}"#, #"{"x": {"name": "a", "url": "u", "extra": 1}}"#, #"{"x": null}"#],
        [#"{"properties": {"url": {"type": "string"}}, "required": ["url"], "type": "object"}"#],
        [#"{"k": "x\\", "m": "\"q\"", "n": "\\\"", "o": 1}"#, #"{"k": "\\\\", "\"": 2.0}"#],
        [#"{"chain": {"evolves_to": [{"evolves_to": [{"evolves_to": []}]}]}}"#],
        (0..<30).map { round in
            "{" + (0..<40).map { key in "\"k\((key * 7 + round) % 40)\": \(round % 3 == 0 ? "1" : "\"s\"")" }
                .dropLast(round % 5).joined(separator: ",") + "}"
        },
    ]

    @Test(.enabled(if: dittoVenv != nil, skipMessage), arguments: edgeCases.indices)
    func edgeCaseMatchesGenson(_ index: Int) async throws {
        let documents = Self.edgeCases[index]
        let builder = SchemaInferenceBuilder()
        for text in documents {
            try builder.add(CanonicalJSON.canonicalize(Array(text.utf8), collectUnder: nil).bytes)
        }
        let schema = CommonSchemas.replacingCommonModels(in: builder.schema())
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("genson-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: scratch.appendingPathExtension("in"))
            try? FileManager.default.removeItem(at: scratch.appendingPathExtension("out"))
        }
        try JSONSerialization.data(withJSONObject: documents).write(to: scratch.appendingPathExtension("in"))
        try Data(schema.jsonBytes).write(to: scratch.appendingPathExtension("out"))
        let result = try await runProgram(Self.dittoVenv!.appendingPathComponent("bin/python").path,
                                    ["-c", Self.gensonScript, scratch.appendingPathExtension("in").path,
                                     scratch.appendingPathExtension("out").path])
        #expect(result.status == 0, "case \(index): \(result.text) \(result.stderr)")
    }

    @Test func mergedBuildersEqualOneBuilder() throws {
        let documents = try SchemaTreeFiles.canonicalDocuments(apiData: Self.sample).filter {
            $0.path.hasPrefix("evolution-chain/") || $0.path.hasPrefix("move/") && $0.path != "move/index.json"
        }
        let whole = SchemaInferenceBuilder(), first = SchemaInferenceBuilder(), second = SchemaInferenceBuilder()
        for (index, document) in documents.enumerated() {
            try whole.add(document.bytes)
            try (index % 2 == 0 ? first : second).add(document.bytes)
        }
        let merged = SchemaInferenceBuilder()
        merged.merge(first)
        merged.merge(second)
        #expect(merged.schema() == whole.schema())
        #expect(merged.documentCount == documents.count)
    }

    /// The reader takes any JSON text, whitespace and escapes included: upstream's
    /// pretty-printed files (`\uXXXX` escapes) give the same schemas as canonical bytes.
    @Test func prettyPrintedBytesGiveTheSameSchemas() throws {
        let pretty = ApiDataSchemaInference()
        for (path, url) in try SchemaTreeFiles.jsonFiles(under: Self.sample.appendingPathComponent("api/v2")) {
            try pretty.add(Data(contentsOf: url), path: path)
        }
        #expect(pretty.files() == (try Self.infer(apiData: Self.sample)))
        #expect(pretty.documentCounts["move-ailment/$id/index.json"] == 2)
        #expect(pretty.documentCounts["move-ailment/-1/index.json"] == 1)
    }

    @Test func patternsAndGlobs() throws {
        #expect(ApiDataSchemaInference.pattern(of: "pokemon/25/encounters/index.json") == "pokemon/$id/encounters/index.json")
        #expect(ApiDataSchemaInference.pattern(of: "move-ailment/-1/index.json") == "move-ailment/-1/index.json")
        #expect(ApiDataSchemaInference.pattern(of: "index.json") == "index.json")
        let inference = ApiDataSchemaInference()
        try inference.add(Array(#"{"id":1}"#.utf8), path: "thing/1/index.json")
        try inference.add(Array(#"{"id":-1,"extra":true}"#.utf8), path: "thing/-1/index.json")
        let files = Dictionary(uniqueKeysWithValues: inference.files().map { ($0.path, $0.json) })
        #expect(files.count == 2 + CommonSchemas.models.count)
        #expect(try SchemaTreeFiles.sameJSON(files["thing/$id/index.json"]!, Array(#"""
            {"$schema":"http://json-schema.org/schema#","type":"object","required":["id"],
             "properties":{"id":{"type":"integer"},"extra":{"type":"boolean"}}}
            """#.utf8)))
        #expect(try SchemaTreeFiles.sameJSON(files["thing/-1/index.json"]!, Array(#"""
            {"$schema":"http://json-schema.org/schema#","type":"object","required":["extra","id"],
             "properties":{"id":{"type":"integer"},"extra":{"type":"boolean"}}}
            """#.utf8)))
    }

    @Test func malformedDocumentsThrow() {
        for text in ["", "{", #"{"a" 1}"#, "[1,]", "tru", "{} x", #"{"a":-}"#, "\"abc"] {
            #expect(throws: JSONSyntaxError.self, "\(text)") { try SchemaInferenceBuilder().add(Array(text.utf8)) }
        }
    }
}
