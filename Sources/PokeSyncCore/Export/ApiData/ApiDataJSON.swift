import Foundation

/// Renders stored documents as PokeAPI/api-data writes them, byte for byte.
///
/// Every `.json` file of upstream's api-data is Python's
/// `json.dumps(document, indent=4, sort_keys=True)`: keys sorted by code point (the last
/// of equal keys kept), four spaces of indent, `","` and a newline between items, `": "`
/// after keys, `{}` and `[]` for empty containers, every character outside
/// U+0020...U+007E escaped (`\"`, `\\`, `\b` `\f` `\n` `\r` `\t`, else `\u` and four
/// lower-case hex digits, a surrogate pair above U+FFFF), integers as written, other
/// numbers as Python's `repr(float)`, no newline at the end. The store keeps the
/// canonical form instead (`CanonicalJSON`): minified, members in the source's order, raw
/// UTF-8. An export that is to compare with upstream byte for byte, and so be served or
/// diffed as upstream's own tree, renders through this.
package enum ApiDataJSON {
    /// Renders one JSON document (canonical or any other valid JSON) as upstream's file
    /// and appends it to `output`.
    ///
    /// A one-off convenience: it allocates its scratch memory on every call. An export of
    /// many documents keeps one `ApiDataJSONWriter` per thread instead.
    /// - Parameters:
    ///   - canonical: the document, UTF-8.
    ///   - baseURL: when non-nil, every string value beginning with `/api/v2` or
    ///     `/schema/v2` gets it in front (one trailing `/` on it ignored), as ditto's
    ///     `transform` does; keys are never rewritten.
    ///   - output: where the rendering is appended.
    /// - Throws: `JSONSyntaxError` when the input is not one valid JSON value.
    package static func write(canonical: some ContiguousBytes, baseURL: String? = nil,
                              into output: inout [UInt8]) throws(JSONSyntaxError) {
        let writer = ApiDataJSONWriter(baseURL: baseURL)
        let result = canonical.withUnsafeBytes { buffer in
            Result { () throws(JSONSyntaxError) in try writer.render(buffer, appendingTo: &output) }
        }
        try result.get()
    }

    /// The rendering of one document as a new array; see `write(canonical:baseURL:into:)`.
    /// - Throws: `JSONSyntaxError` when the input is not one valid JSON value.
    package static func render(_ canonical: some ContiguousBytes, baseURL: String? = nil) throws(JSONSyntaxError) -> [UInt8] {
        var output: [UInt8] = []
        try write(canonical: canonical, baseURL: baseURL, into: &output)
        return output
    }
}

/// A reusable renderer to upstream's api-data form (see `ApiDataJSON`), one per thread.
///
/// It keeps its output buffer and its stacks between documents, so rendering a tree of
/// thousands of documents allocates almost nothing after the largest one. Not thread-safe:
/// it is a scratch pad (and so deliberately not `Sendable`).
package final class ApiDataJSONWriter {
    /// The base URL as the bytes written in front of a rewritten value (already escaped
    /// as upstream escapes strings); empty when URLs stay relative.
    let basePrefix: [UInt8]
    /// The rendering buffer: `capacity` bytes, the last rendering at its start.
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes of the last rendering in `buffer`.
    private var rendered = 0
    /// Open containers and the members of open objects, kept for their capacity.
    private var containers: [ApiDataContainer] = []
    private var members: [ApiDataMember] = []
    /// Where an unsorted object's body is copied while it is written back in key order.
    private var scratch: [UInt8] = []
    private var order: [Int] = []

    /// Creates a writer.
    /// - Parameter baseURL: nil or empty: URLs are written as stored (relative). Else the
    ///   origin to put in front of every string value beginning with `/api/v2` or
    ///   `/schema/v2`, e.g. `https://mirror.example/pokeapi` (one trailing `/` ignored,
    ///   as ditto's `transform` ignores it).
    package init(baseURL: String? = nil) {
        var base = baseURL ?? ""
        if base.hasSuffix("/") { base.removeLast() }
        basePrefix = ApiDataJSONWriter.escapedContents(base)
        capacity = 1 << 16
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    /// Renders one document and hands the bytes to `body`, without copying them.
    ///
    /// - Parameters:
    ///   - json: the document, UTF-8: canonical JSON, or any valid JSON (whitespace and
    ///     any escapes are accepted and rendered as Python would).
    ///   - body: gets the rendering; the buffer is only valid during the call.
    /// - Returns: what `body` returns.
    /// - Throws: `JSONSyntaxError` when `json` is not one valid JSON value; what `body` throws.
    package func render<Result>(_ json: UnsafeRawBufferPointer,
                                _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try renderIntoBuffer(json)
        return try body(UnsafeRawBufferPointer(start: buffer, count: rendered))
    }

    /// Renders one document and appends the bytes to `output`.
    /// - Throws: `JSONSyntaxError` when `json` is not one valid JSON value.
    package func render(_ json: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) throws(JSONSyntaxError) {
        try renderIntoBuffer(json)
        output.append(contentsOf: UnsafeBufferPointer(start: buffer, count: rendered))
    }

    /// Runs the renderer over `json`, leaving the result at the start of `buffer`.
    private func renderIntoBuffer(_ json: UnsafeRawBufferPointer) throws(JSONSyntaxError) {
        rendered = 0
        guard let base = json.baseAddress, json.count > 0 else { throw .endOfInput(at: 0) }
        containers.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        var renderer = ApiDataRenderer(
            input: base.assumingMemoryBound(to: UInt8.self), count: json.count,
            output: buffer, capacity: capacity, basePrefix: basePrefix)
        // Lend the stacks (moved, not shared, so they are not copied on first write) and
        // take everything back whatever happens: the buffer may have moved when it grew.
        swap(&containers, &renderer.containers)
        swap(&members, &renderer.members)
        swap(&scratch, &renderer.scratch)
        swap(&order, &renderer.order)
        defer {
            buffer = renderer.output
            capacity = renderer.capacity
            swap(&containers, &renderer.containers)
            swap(&members, &renderer.members)
            swap(&scratch, &renderer.scratch)
            swap(&order, &renderer.order)
        }
        try renderer.renderDocument()
        rendered = renderer.written
    }

    /// The contents (between the quotes) of a JSON string holding `text`, escaped as
    /// upstream escapes strings.
    static func escapedContents(_ text: String) -> [UInt8] {
        var result: [UInt8] = []
        for scalar in text.unicodeScalars {
            ApiDataRenderer.appendEscaped(scalar.value, to: &result)
        }
        return result
    }
}
