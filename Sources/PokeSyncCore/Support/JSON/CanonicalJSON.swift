import Foundation

/// One JSON document in canonical byte form, with the few facts the crawler needs from it.
///
/// The canonical form is what pokesync hashes and stores, so two renderings of the same
/// document (pretty-printed with relative URLs, or minified with absolute URLs) give the
/// same bytes and the same SHA-256.
package struct CanonicalDocument: Sendable, Equatable {
    /// The canonical form, UTF-8: no whitespace outside strings, members in their
    /// original order, strings with the minimal escapes, numbers as written.
    package var bytes: [UInt8]
    /// The top-level `"id"` member if it is an integer that fits an `Int`, else nil.
    package var id: Int?
    /// The top-level `"name"` member if it is a string, else nil.
    package var name: String?
    /// Every string value inside the top-level member named by `collectUnder`, in
    /// document order. JSON `null`, numbers and booleans are not collected.
    package var collected: [CollectedString]
    /// The same for the top-level member named by `alsoCollectUnder` (a pokemon's `cries`).
    package var collectedAlso: [CollectedString]

    /// Creates a document from its parts.
    package init(bytes: [UInt8], id: Int?, name: String?, collected: [CollectedString], collectedAlso: [CollectedString] = []) {
        self.bytes = bytes
        self.id = id
        self.name = name
        self.collected = collected
        self.collectedAlso = collectedAlso
    }
}

/// A string value found below the collected top-level member (for example a sprite URL).
package struct CollectedString: Sendable, Hashable {
    /// The key path below the collected member, joined by "/", array elements by index:
    /// `"front_default"`, `"other/official-artwork/front_default"`,
    /// `"versions/generation-i/red-blue/front_gray"`.
    package var path: String
    /// The unescaped string value (after API-prefix stripping).
    package var value: String

    /// Creates a collected value.
    package init(path: String, value: String) {
        self.path = path
        self.value = value
    }
}

/// Why a body is not one complete, acceptable JSON value.
///
/// A truncated body (`isTruncation`) is the usual sign of a connection that closed early
/// and came back as a 200 with short data; fetching again may help. Any other reason means
/// the body itself is broken or hostile.
package struct JSONSyntaxError: PokeSyncError, Equatable {
    /// Byte offset in the input where the problem was found.
    package var offset: Int
    /// What was wrong, e.g. "unexpected end of input".
    package var reason: String
    /// True when the input ended before the value was complete.
    package var isTruncation: Bool

    /// Creates an error at a byte offset.
    package init(offset: Int, reason: String, isTruncation: Bool = false) {
        self.offset = offset
        self.reason = reason
        self.isTruncation = isTruncation
    }

    /// An input that ended inside a value.
    static func endOfInput(at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, reason: "unexpected end of input", isTruncation: true)
    }

    package var code: ErrorCode { .invalidJSON }

    /// One line, e.g. `invalid JSON at byte 1234: unexpected end of input`.
    package var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// Validates, canonicalizes and mines a JSON document in one non-recursive pass.
///
/// Canonical form: no whitespace outside strings; object members keep their order;
/// in strings `\/` becomes `/`, `\uXXXX` becomes raw UTF-8 (surrogate pairs joined)
/// except for `"`, `\` and controls, which are written `\"`, `\\`, `\b` `\f` `\n` `\r` `\t`
/// or `\u00xx` (lower-case hex); numbers are copied as written; `true`, `false`, `null`
/// as is. Canonicalizing a canonical document changes nothing.
package enum CanonicalJSON {
    /// Containers nested deeper than this are rejected.
    package static let maximumDepth = 256
    /// The default size limit: the largest real document (pokemon 151) is about 1.3 MB.
    package static let defaultMaximumSize = 64 << 20

    /// Canonicalizes one JSON document held in memory.
    ///
    /// - Parameters:
    ///   - input: the raw body, UTF-8.
    ///   - stripPrefix: when non-nil (e.g. `"https://pokeapi.co"` or
    ///     `"http://127.0.0.1:8080"`), every string value that begins with
    ///     `stripPrefix + "/api/v2/"` loses the prefix and becomes `"/api/v2/..."`.
    ///     Values are compared after unescaping; keys are never rewritten. A trailing
    ///     "/" on the prefix is ignored; an empty prefix strips nothing. The prefix is
    ///     meant to be an origin (scheme and host): one that itself begins with
    ///     "/api/v2/" would make the result depend on how often it is applied.
    ///     Whatever the prefix, any `http://` or `https://` origin (any host, any port,
    ///     no user info) directly in front of `/api/v2/` is stripped too: a server behind
    ///     a reverse proxy names the host it was asked for, which need not be the source's.
    ///   - collectUnder: the top-level member whose string values are collected, or nil.
    ///   - alsoCollectUnder: a second top-level member collected apart (`collectedAlso`), or nil.
    ///   - maximumSize: inputs longer than this many bytes are rejected unread.
    /// - Returns: the canonical bytes, the top-level id and name, and the collected strings.
    /// - Throws: `JSONSyntaxError` when the input is not exactly one complete JSON value
    ///   (whitespace around it allowed), when containers nest deeper than
    ///   `maximumDepth`, when a string holds invalid UTF-8, a raw control character, a bad
    ///   escape or a lone surrogate, or when the input is larger than `maximumSize`.
    package static func canonicalize(
        _ input: UnsafeRawBufferPointer,
        stripPrefix: String? = nil,
        collectUnder: String? = "sprites",
        alsoCollectUnder: String? = "cries",
        maximumSize: Int = defaultMaximumSize
    ) throws(JSONSyntaxError) -> CanonicalDocument {
        guard input.count <= maximumSize else {
            throw JSONSyntaxError(offset: maximumSize, reason: "document larger than \(maximumSize) bytes")
        }
        guard let base = input.baseAddress, input.count > 0 else { throw .endOfInput(at: 0) }
        let options = CanonicalScanOptions(stripPrefix: stripPrefix, collectUnder: collectUnder, alsoCollectUnder: alsoCollectUnder)
        var failure: JSONSyntaxError?
        var findings = CanonicalScanFindings()
        // The canonical form is never longer than the input: every rewrite shortens or
        // keeps the length, so one allocation of the input's size is enough.
        let bytes = [UInt8](unsafeUninitializedCapacity: input.count) { buffer, initializedCount in
            var scanner = CanonicalScanner(
                input: base.assumingMemoryBound(to: UInt8.self), count: input.count,
                output: buffer.baseAddress!, options: options)
            do throws(JSONSyntaxError) {
                try scanner.scanDocument()
                findings = scanner.findings
                initializedCount = scanner.written
            } catch {
                failure = error
                initializedCount = 0
            }
        }
        if let failure { throw failure }
        return CanonicalDocument(bytes: bytes, id: findings.id, name: findings.name,
                                 collected: findings.collected, collectedAlso: findings.collectedAlso)
    }

    /// Canonicalizes one JSON document held in `Data` or a byte array.
    ///
    /// - Throws: `JSONSyntaxError`, as `canonicalize(_:stripPrefix:collectUnder:maximumSize:)`
    ///   on a raw buffer.
    package static func canonicalize(
        _ bytes: some ContiguousBytes,
        stripPrefix: String? = nil,
        collectUnder: String? = "sprites",
        alsoCollectUnder: String? = "cries",
        maximumSize: Int = defaultMaximumSize
    ) throws(JSONSyntaxError) -> CanonicalDocument {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONSyntaxError) in
                try canonicalize(buffer, stripPrefix: stripPrefix, collectUnder: collectUnder,
                                 alsoCollectUnder: collectUnder == nil ? nil : alsoCollectUnder, maximumSize: maximumSize)
            }
        }
        return try result.get()
    }
}

/// The scan's settings, pre-encoded in canonical form so they compare byte for byte
/// with what the scanner has just written.
struct CanonicalScanOptions {
    /// Canonical bytes of the origin to remove, e.g. `https://pokeapi.co`; empty: none.
    var strippedOrigin: [UInt8] = []
    /// Canonical bytes of `origin + APIShape.rootPath`: what a value must begin with.
    var strippedMatch: [UInt8] = []
    /// Canonical bytes of the collected member's key; nil: collect nothing.
    var collectKey: [UInt8]?
    /// Canonical bytes of the second collected member's key; nil: none.
    var alsoCollectKey: [UInt8]?

    init(stripPrefix: String?, collectUnder: String?, alsoCollectUnder: String? = nil) {
        if var origin = stripPrefix {
            while origin.hasSuffix("/") { origin.removeLast() }
            if !origin.isEmpty {
                strippedOrigin = CanonicalJSON.canonicalStringContents(origin)
                strippedMatch = CanonicalJSON.canonicalStringContents(origin + APIShape.rootPath)
            }
        }
        collectKey = collectUnder.map(CanonicalJSON.canonicalStringContents)
        alsoCollectKey = alsoCollectUnder.map(CanonicalJSON.canonicalStringContents)
    }
}

/// What the scan found besides the canonical bytes.
struct CanonicalScanFindings {
    var id: Int?
    var name: String?
    var collected: [CollectedString] = []
    var collectedAlso: [CollectedString] = []
}
