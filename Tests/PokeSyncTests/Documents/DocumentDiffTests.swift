import Foundation
import Testing
@testable import PokeSyncCore

@Suite("Document diff")
struct DocumentDiffTests {
    func canonical(_ text: String) throws -> [UInt8] {
        try CanonicalJSON.canonicalize(Array(text.utf8)).bytes
    }

    @Test func equalDocumentsHaveNoPaths() throws {
        let a = try canonical(#"{"id": 1, "name": "x", "moves": [1, 2]}"#)
        #expect(DocumentDiff.changedPaths(a, a).isEmpty)
    }

    @Test func formattingIsNotAChange() throws {
        let pretty = try canonical("{\n  \"id\": 1,\n  \"name\": \"flab\\u00e9b\\u00e9\"\n}")
        let compact = try canonical(#"{"id":1,"name":"flabébé"}"#)
        #expect(DocumentDiff.changedPaths(pretty, compact).isEmpty)
    }

    @Test func reorderedKeysDeepInsideAreNotAChange() throws {
        let a = try canonical(#"{"a":{"b":{"c":{"x":1,"y":2}}}}"#)
        let b = try canonical(#"{"a":{"b":{"c":{"y":2,"x":1}}}}"#)
        #expect(DocumentDiff.changedPaths(a, b).isEmpty)
        let c = try canonical(#"{"moves":[{"m":1,"n":2}]}"#)
        let d = try canonical(#"{"moves":[{"n":2,"m":1}]}"#)
        #expect(DocumentDiff.changedPaths(c, d).isEmpty)
    }

    @Test func topMostDifferingMembersAreNamed() throws {
        let a = try canonical(#"{"id":25,"moves":[1,2],"sprites":{"front_default":"a","other":{"home":{"f":"1"},"dream":{"f":"2"}}},"gone":1}"#)
        let b = try canonical(#"{"id":25,"moves":[1,2,3],"sprites":{"front_default":"a","other":{"home":{"f":"9"},"dream":{"f":"2"}}},"new":true}"#)
        #expect(DocumentDiff.changedPaths(a, b) == ["/moves", "/sprites/other/home", "/new", "/gone"])
    }

    @Test func pointerSegmentsAreEscaped() throws {
        let a = try canonical(#"{"a/b":1,"c~d":1}"#)
        let b = try canonical(#"{"a/b":2,"c~d":2}"#)
        #expect(DocumentDiff.changedPaths(a, b) == ["/a~1b", "/c~0d"])
    }

    @Test func membersSplitOnlyAtTopLevel() throws {
        let bytes = try canonical(#"{"a":"x,}\"y","b":[1,{"c":"]"}],"d":null}"#)
        let members = try #require(JSONMembers.split(bytes, 0..<bytes.count))
        #expect(members.map(\.key) == ["a", "b", "d"])
        #expect(String(decoding: bytes[members[1].value], as: UTF8.self) == #"[1,{"c":"]"}]"#)
        let elements = try #require(JSONMembers.elements(bytes, members[1].value))
        #expect(elements.count == 2)
    }
}
