import Foundation

// What `ditto analyze` (pokeapi-ditto 1.0.5, genson 1.4.0, orjson) writes as api-data's
// `schema/v2/`, read from their source and checked on both api-data fixtures
// (2025-12-02: 114 files, 2026-08-08: 117, all JSON-equal):
//
// - One schema per path pattern: every `.json` path under `api/` with each part made
//   only of ASCII digits replaced by `$id` (`v2/pokemon/$id/encounters/index.json`),
//   written at `schema/` + the pattern. A pattern's documents are found by globbing it
//   with `$id` as `*`, so `move-ailment/$id/index.json` also takes
//   `move-ailment/-1/index.json`, which has a pattern of its own as well.
// - Per pattern, genson's `SchemaBuilder` is fed every document (`add_object`), and
//   `to_schema()` is `{"$schema": "http://json-schema.org/schema#"}` plus the root
//   node's schema.
// - A node keeps one strategy per JSON type, in the order the types were first seen:
//   null, boolean, number, string, array (genson's `List`), object. Number is
//   `integer` until a float is seen (orjson: a number with `.`, `e` or `E`), then
//   `number` for good; booleans are never numbers.
// - A node's schema: strategies whose schema is only `{"type": T}` (scalars, an array
//   whose elements were all empty arrays, an object that only ever was `{}`) share one
//   `type`, a string or, when several, a list sorted by code point (`["null",
//   "string"]`), placed first; a lone schema is the result, several are `anyOf` in
//   activation order (`[{"type": "null"}, {"type": "object", ...}]`), none is `{}`.
// - Arrays: `{"type": "array", "items": S}`, S the node of every element of every
//   array there; no `items` when every array was empty.
// - Objects: `properties` for every key ever seen, `required` the keys present in
//   every object, sorted by code point, left out when empty; no `additionalProperties`.
// - Then each common model of ditto's list (`CommonSchemas.models`, in its order) is
//   replaced, anywhere in the tree, by `{"$ref": "/schema/v2/NAME.json"}`: a dict
//   (any dict, `$schema` set aside) *equal as a value* to the model becomes the
//   reference, keeping its `$schema` (so a list document's whole schema becomes
//   `{"$ref": ".../named_api_resource_list.json", "$schema": ...}`). Models refer to
//   earlier ones, so replacements chain (`name` after `named_api_resource`).
// - The 15 common models are written too, each `{"$schema": ..., **model}`; the two
//   resource lists with `next` and `previous` typed `["null", "string"]`.
//
// Where this differs from ditto: the order of `anyOf` members after the first comes
// from the order documents are added (ditto's is its directory listing order; on the
// fixtures no `anyOf` has two such members); an object key written twice in one
// document is counted once but both values are inferred (orjson keeps the last).

/// genson's `SchemaBuilder` over canonical JSON documents, reading bytes directly:
/// the builder holds the schema learned so far, never the documents.
///
/// Not thread-safe. Documents of different patterns go to different builders, which
/// run in parallel; one pattern's documents can also be split over several builders
/// and `merge`d (in document order, to keep `anyOf` order).
package final class SchemaInferenceBuilder {
    /// genson's default `$schema`.
    package static let schemaURI = "http://json-schema.org/schema#"

    private var tree = SchemaTree()
    /// Documents added (merged builders' included).
    package private(set) var documentCount = 0

    package init() {}

    /// Learns from one document: canonical JSON (whitespace between tokens is
    /// accepted too), as `CanonicalJSON.canonicalize` writes it.
    /// - Throws: `JSONSyntaxError` when the bytes are not one JSON value. The reader is
    ///   meant for documents the store has already validated; it checks structure,
    ///   not UTF-8 or escapes. After a throw, the builder holds part of the document.
    package func add(_ document: UnsafeRawBufferPointer) throws(JSONSyntaxError) {
        guard let base = document.baseAddress, document.count > 0 else { throw .endOfInput(at: 0) }
        var reader = SchemaInferenceReader(bytes: base.assumingMemoryBound(to: UInt8.self), count: document.count)
        // The tree moves into the reader for the document and back, so the reader
        // mutates a value it owns (no exclusivity check per access).
        swap(&reader.tree, &tree)
        defer { swap(&reader.tree, &tree) }
        try reader.readDocument()
        documentCount += 1
    }

    /// Learns from one document held in an array or `Data`.
    package func add(_ document: some ContiguousBytes) throws(JSONSyntaxError) {
        let result = document.withUnsafeBytes { buffer in
            Result { () throws(JSONSyntaxError) in try add(buffer) }
        }
        try result.get()
    }

    /// Adds what `other` learned, as if its documents came after this builder's.
    package func merge(_ other: SchemaInferenceBuilder) {
        tree.merge(other.tree, node: SchemaTree.root, into: SchemaTree.root)
        documentCount += other.documentCount
    }

    /// genson's `to_schema()`: `$schema` and the inferred schema of the documents.
    package func schema() -> SchemaValue {
        guard case .object(let members) = tree.schema(of: SchemaTree.root) else { return .object([]) }
        return .object([("$schema", .string(Self.schemaURI))] + members)
    }
}

/// A recursive-descent pass over one JSON document that feeds a `SchemaTree` and keeps
/// nothing else: strings are skipped (keys are compared as bytes), numbers are only
/// looked at for `.`, `e`, `E`. Depth is capped at `CanonicalJSON.maximumDepth`.
struct SchemaInferenceReader {
    let bytes: UnsafePointer<UInt8>
    let count: Int
    var position = 0
    /// The tree being fed; empty until the builder swaps its own in.
    var tree = SchemaTree(empty: ())

    init(bytes: UnsafePointer<UInt8>, count: Int) {
        self.bytes = bytes
        self.count = count
    }

    mutating func readDocument() throws(JSONSyntaxError) {
        skipSpace()
        try readValue(into: SchemaTree.root, depth: 0)
        skipSpace()
        guard position == count else { throw unexpected("data after the document") }
    }

    private func unexpected(_ what: String) -> JSONSyntaxError {
        position >= count ? .endOfInput(at: position) : JSONSyntaxError(offset: position, reason: what)
    }

    @inline(__always)
    private mutating func skipSpace() {
        while position < count {
            switch bytes[position] {
            case JSONByte.space, JSONByte.tab, JSONByte.newline, JSONByte.carriageReturn: position += 1
            default: return
            }
        }
    }

    private mutating func readValue(into node: Int32, depth: Int) throws(JSONSyntaxError) {
        guard position < count else { throw .endOfInput(at: position) }
        switch bytes[position] {
        case JSONByte.openBrace:
            try readObject(into: tree.shape(of: node), depth: depth + 1)
        case JSONByte.openBracket:
            try readArray(into: tree.items(of: node), depth: depth + 1)
        case JSONByte.quote:
            tree.activate(.string, at: node)
            try skipString()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            tree.activate(.boolean, at: node)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            tree.activate(.boolean, at: node)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            tree.activate(.null, at: node)
        case JSONByte.minus, JSONByte.zero...JSONByte.nine:
            tree.activate(.number, at: node)
            if try skipNumber() { tree.nodes[Int(node)].sawFloat = true }
        default:
            throw unexpected("unexpected character")
        }
    }

    private mutating func readObject(into shape: Int32, depth: Int) throws(JSONSyntaxError) {
        guard depth <= CanonicalJSON.maximumDepth else { throw unexpected("nesting too deep") }
        tree.shapes[Int(shape)].objectCount += 1
        let object = tree.shapes[Int(shape)].objectCount
        position += 1
        skipSpace()
        if position < count, bytes[position] == JSONByte.closeBrace {
            position += 1
            return
        }
        var hint = 0
        while true {
            guard position < count, bytes[position] == JSONByte.quote else { throw unexpected("expected a key") }
            let keyStart = position + 1
            try skipString()
            let key = UnsafeBufferPointer(start: bytes + keyStart, count: position - 1 - keyStart)
            skipSpace()
            guard position < count, bytes[position] == JSONByte.colon else { throw unexpected("expected ':'") }
            position += 1
            skipSpace()
            let (property, slot) = tree.property(of: shape, key: key, hint: hint)
            hint = slot + 1
            if tree.properties[Int(property)].lastObject != object {
                tree.properties[Int(property)].lastObject = object
                tree.properties[Int(property)].present += 1
            }
            try readValue(into: tree.properties[Int(property)].node, depth: depth)
            if try atContainerEnd(JSONByte.closeBrace, "expected ',' or '}'") { return }
        }
    }

    private mutating func readArray(into items: Int32, depth: Int) throws(JSONSyntaxError) {
        guard depth <= CanonicalJSON.maximumDepth else { throw unexpected("nesting too deep") }
        position += 1
        skipSpace()
        if position < count, bytes[position] == JSONByte.closeBracket {
            position += 1
            return
        }
        while true {
            try readValue(into: items, depth: depth)
            if try atContainerEnd(JSONByte.closeBracket, "expected ',' or ']'") { return }
        }
    }

    /// After a member or an element: true, past it, when `closer` ends the container;
    /// false after a comma, at the next member or element.
    private mutating func atContainerEnd(_ closer: UInt8, _ expected: String) throws(JSONSyntaxError) -> Bool {
        skipSpace()
        guard position < count else { throw .endOfInput(at: position) }
        switch bytes[position] {
        case JSONByte.comma:
            position += 1
            skipSpace()
            return false
        case closer:
            position += 1
            return true
        default:
            throw unexpected(expected)
        }
    }

    /// Moves past a string starting at the opening quote.
    @inline(__always)
    private mutating func skipString() throws(JSONSyntaxError) {
        position += 1
        while position < count {
            // The next quote, found by memchr; it ends the string unless an odd run of
            // backslashes escapes it.
            guard let found = memchr(bytes + position, Int32(JSONByte.quote), count - position) else { break }
            let quote = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - bytes
            var backslashes = 0
            while quote - backslashes - 1 >= position, bytes[quote - backslashes - 1] == JSONByte.backslash { backslashes += 1 }
            position = quote + 1
            if backslashes % 2 == 0 { return }
        }
        throw .endOfInput(at: count)
    }

    /// Moves past a number; true when orjson would read it as a float.
    private mutating func skipNumber() throws(JSONSyntaxError) -> Bool {
        var isFloat = false
        var digits = 0
        scan: while position < count {
            switch bytes[position] {
            case JSONByte.zero...JSONByte.nine: digits += 1
            case JSONByte.dot, JSONByte.lowerE, JSONByte.upperE: isFloat = true
            case JSONByte.minus, JSONByte.plus: break
            default: break scan
            }
            position += 1
        }
        guard digits > 0 else { throw unexpected("a number without digits") }
        return isFloat
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let length = literal.utf8CodeUnitCount
        guard position + length <= count, memcmp(bytes + position, literal.utf8Start, length) == 0 else {
            throw unexpected("unexpected character")
        }
        position += length
    }
}
