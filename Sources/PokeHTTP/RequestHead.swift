/// One request's head as the server and its responders need it: the method, the path and
/// query as sent, the fields the application keeps (``HTTPServerConfiguration/keptRequestHeaders``)
/// and those the server acts on itself. Everything else a client sends is read past,
/// within the bounds of ``HTTPLimits``.
package struct RequestHead: Sendable, Equatable {
    /// The method token as sent (`GET`, `HEAD`, `POST`...).
    package var method: String
    /// The path as sent, still percent-encoded, without the query.
    package var path: String
    /// What follows `?`, as sent; nil when there is no `?`.
    package var query: String?
    /// 0 for HTTP/1.0, 1 for HTTP/1.1 (and any later 1.x).
    var minorVersion: Int
    /// Whether the client wants the connection kept after this response.
    var keepAlive: Bool
    /// The request announces a body (`Content-Length` above 0): it is not read, so the
    /// connection is closed after the response.
    var hasBody: Bool
    /// The kept fields in the order they first came, names in lowercase; a field sent on
    /// more than one line is one, its values joined by commas in order (a list, RFC 9110, 5.3).
    package private(set) var fields: [RequestField] = []
    /// `Referer` and `User-Agent`, the bytes as sent (not decoded: the access log writes
    /// what the client sent, `\xHH` for what is not printable ASCII, as nginx does).
    var referer: [UInt8]? = nil
    var userAgent: [UInt8]? = nil

    /// A head as parsed; `fields` by lowercase name (tests and responders' own requests).
    package init(method: String, path: String, query: String?, minorVersion: Int = 1, keepAlive: Bool = true,
                 hasBody: Bool = false, fields: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.query = query
        self.minorVersion = minorVersion
        self.keepAlive = keepAlive
        self.hasBody = hasBody
        if !fields.isEmpty {
            self.fields = fields.sorted { $0.key < $1.key }.map { RequestField(name: $0.key.lowercased(), value: $0.value) }
        }
    }

    /// The value of the kept field `name` (lowercase), or nil when the client did not send it.
    package func field(_ name: String) -> String? {
        for field in fields where field.name == name { return field.value }
        return nil
    }

    /// Keeps `value` for `name`, after what came before under that name.
    mutating func add(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { $0.name == name }) {
            fields[index].value += "," + value
        } else {
            fields.append(RequestField(name: name, value: value))
        }
    }

    package var isGetOrHead: Bool { method == "GET" || method == "HEAD" }
    package var isHead: Bool { method == "HEAD" }
}

/// A request header field the application keeps: its lowercase name and its value as sent.
package struct RequestField: Sendable, Equatable {
    package let name: String
    package var value: String
}

/// What a look at the buffered input found.
enum HeadScan: Equatable {
    /// The head is not complete yet: read more.
    case incomplete
    /// A whole head, `length` bytes of input (leading empty lines included).
    case complete(RequestHead, length: Int)
    /// The input is refused with `status` (400, 414, 431, 505); the connection closes after.
    case rejected(status: HTTPStatus, reason: String)
}

/// Finds and parses one request head in a connection's input, resuming where it stopped
/// when more bytes arrive, so a client that trickles its head costs one pass in all.
package struct RequestHeadScanner {
    /// The fields kept in each head (lowercase names), with their bytes to compare a name with.
    private let kept: [(name: String, bytes: [UInt8])]
    private var position = 0
    private var lineStart = 0
    private var requestLine: Range<Int>?
    private var fields = 0

    /// A scanner keeping the fields named in `kept` (lowercase).
    package init(keeping kept: Set<String>) { self.kept = kept.sorted().map { ($0, Array($0.utf8)) } }

    /// Forgets the request scanned; call after its bytes were consumed.
    mutating func reset() {
        position = 0
        lineStart = 0
        requestLine = nil
        fields = 0
    }

    /// Scans `input` (a connection's unconsumed bytes, which only grow between calls
    /// until ``reset()``) for a complete head.
    mutating func scan(_ input: UnsafeRawBufferPointer, limits: HTTPLimits) -> HeadScan {
        // The input never holds more than a head's limit (the connection's buffer).
        let count = min(input.count, limits.head)
        while position < count {
            let byte = input[position]
            if byte > 0x0D {
                // Neither LF, CR nor NUL: the usual byte, counted against the request line's limit alone.
                position += 1
                if requestLine == nil && position - lineStart > limits.requestLine {
                    return .rejected(status: .uriTooLong, reason: "the request line is longer than \(limits.requestLine) bytes")
                }
                if position >= limits.head { break }
                continue
            }
            if byte == 0x0A {
                var contentEnd = position
                if contentEnd > lineStart && input[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                let isEmpty = contentEnd == lineStart
                if let requestLine {
                    if isEmpty {
                        let length = position + 1
                        return Self.parse(input, requestLine: requestLine, fieldsEnd: lineStart, length: length, kept: kept)
                    }
                    fields += 1
                    if fields > limits.headerFields {
                        return .rejected(status: .headerFieldsTooLarge, reason: "more than \(limits.headerFields) header fields")
                    }
                } else if !isEmpty {
                    // Empty lines before the request line are ignored (RFC 9112, 2.2).
                    requestLine = lineStart ..< contentEnd
                }
                lineStart = position + 1
            } else if byte == 0x0D {
                guard position + 1 < count else { break }  // the LF may come with the next read
                if input[position + 1] != 0x0A { return .rejected(status: .badRequest, reason: "a bare CR in the head") }
            } else if byte == 0 {
                return .rejected(status: .badRequest, reason: "a NUL byte in the head")
            }
            position += 1
            // The line's own CRLF is not counted: a line of exactly the limit is taken.
            if requestLine == nil && byte != 0x0D && position - lineStart > limits.requestLine {
                return .rejected(status: .uriTooLong, reason: "the request line is longer than \(limits.requestLine) bytes")
            }
            if position >= limits.head { break }
        }
        if position >= limits.head {
            return requestLine == nil
                ? .rejected(status: .uriTooLong, reason: "the request line is longer than \(limits.requestLine) bytes")
                : .rejected(status: .headerFieldsTooLarge, reason: "the head is longer than \(limits.head) bytes")
        }
        return .incomplete
    }

    /// Parses a complete head: the request line, then each field line up to `fieldsEnd`.
    private static func parse(_ input: UnsafeRawBufferPointer, requestLine: Range<Int>, fieldsEnd: Int,
                              length: Int, kept: [(name: String, bytes: [UInt8])]) -> HeadScan {
        // The request line: method SP target SP version, single spaces.
        let line = input[requestLine]
        var spaces = (first: line.endIndex, second: line.endIndex), spaceCount = 0
        for index in requestLine where input[index] == 0x20 {
            if spaceCount == 0 { spaces.first = index } else if spaceCount == 1 { spaces.second = index }
            spaceCount += 1
        }
        guard spaceCount == 2 else {
            return .rejected(status: .badRequest, reason: spaceCount == 1 ? "HTTP/0.9 is not served" : "a malformed request line")
        }
        let methodBytes = input[line.startIndex ..< spaces.first], target = input[spaces.first + 1 ..< spaces.second]
        let version = input[spaces.second + 1 ..< line.endIndex]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else {
            return .rejected(status: .badRequest, reason: "a malformed method")
        }
        guard version.count == 8, equalsIgnoringCase(version.prefix(5), Self.httpSlash, exactly: true),
              let major = digit(version[version.startIndex + 5]), version[version.startIndex + 6] == 0x2E,
              let minor = digit(version[version.startIndex + 7]) else {
            return .rejected(status: .badRequest, reason: "a malformed HTTP version")
        }
        guard major == 1 else {
            return .rejected(status: .httpVersionNotSupported, reason: "HTTP/\(major) is not served on this port (HTTP/1.1 only)")
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .rejected(status: .badRequest, reason: "a malformed request target")
        }
        guard var pathAndQuery = originForm(target) else {
            return .rejected(status: .badRequest, reason: "a request target that is not a path")
        }
        if let hash = firstIndex(of: 0x23, in: pathAndQuery) { pathAndQuery = pathAndQuery[..<hash] }
        var head = RequestHead(method: String(decoding: methodBytes, as: UTF8.self), path: "", query: nil,
                               minorVersion: minor == 0 ? 0 : 1, keepAlive: minor != 0)
        if let question = firstIndex(of: 0x3F, in: pathAndQuery) {
            head.path = String(decoding: pathAndQuery[..<question], as: UTF8.self)
            head.query = String(decoding: pathAndQuery[(question + 1)...], as: UTF8.self)
        } else {
            head.path = String(decoding: pathAndQuery, as: UTF8.self)
        }

        var contentLength: Int?
        var start = requestLine.upperBound
        // Skip the request line's own line end.
        while start < fieldsEnd && (input[start] == 0x0D || input[start] == 0x0A) { start += 1 }
        while start < fieldsEnd {
            var end = start
            while input[end] != 0x0A { end += 1 }
            var contentEnd = end
            if contentEnd > start && input[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let field = input[start ..< contentEnd]
            start = end + 1
            guard let first = field.first, first != 0x20, first != 0x09 else {
                return .rejected(status: .badRequest, reason: "a folded or empty header line")
            }
            guard let colon = firstIndex(of: 0x3A, in: field), colon > field.startIndex,
                  field[..<colon].allSatisfy(isTokenByte) else {
                return .rejected(status: .badRequest, reason: "a malformed header field")
            }
            var valueStart = colon + 1, valueEnd = field.endIndex
            while valueStart < valueEnd && (input[valueStart] == 0x20 || input[valueStart] == 0x09) { valueStart += 1 }
            while valueEnd > valueStart && (input[valueEnd - 1] == 0x20 || input[valueEnd - 1] == 0x09) { valueEnd -= 1 }
            let value = input[valueStart ..< valueEnd]
            guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
                return .rejected(status: .badRequest, reason: "a control character in a header value")
            }
            let name = field[..<colon]
            if equalsIgnoringCase(name, Self.connection) {
                for option in lowercased(value).split(separator: ",") {
                    let word = option.trimmingSpaces
                    if word == "close" { head.keepAlive = false }
                    if word == "keep-alive" && head.minorVersion == 0 { head.keepAlive = true }
                }
            } else if equalsIgnoringCase(name, Self.referer) {
                head.referer = Array(value)
            } else if equalsIgnoringCase(name, Self.userAgent) {
                head.userAgent = Array(value)
            } else if equalsIgnoringCase(name, Self.contentLength) {
                guard !value.isEmpty, value.count <= 18, value.allSatisfy({ digit($0) != nil }) else {
                    return .rejected(status: .badRequest, reason: "a malformed Content-Length")
                }
                let number = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                if let contentLength, contentLength != number {
                    return .rejected(status: .badRequest, reason: "two different Content-Length values")
                }
                contentLength = number
            } else if equalsIgnoringCase(name, Self.transferEncoding) {
                // A GET has no body to chunk; with Content-Length too it is a smuggling attempt.
                return .rejected(status: .badRequest, reason: "request bodies (Transfer-Encoding) are not accepted")
            } else if let keptName = kept.first(where: { equalsIgnoringCase(name, $0.bytes) })?.name {
                head.add(keptName, String(decoding: value, as: UTF8.self))
            }
        }
        head.hasBody = (contentLength ?? 0) > 0
        return .complete(head, length: length)
    }

    /// The path and query of an origin-form target (`/a?b`), or of an absolute-form one
    /// (`http://host/a?b`, whose host is ignored); nil for anything else (`*`, authority form).
    private static func originForm(_ target: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer>? {
        if target.first == 0x2F { return target }
        for scheme in ["http://", "https://"] where lowercased(target.prefix(scheme.utf8.count)) == scheme {
            let rest = target.dropFirst(scheme.utf8.count)
            guard let slash = rest.firstIndex(of: 0x2F) else { return nil }
            return rest[slash...]
        }
        return nil
    }

    // The fields the server acts on itself (lowercase): compared with each name as sent,
    // nothing made of a field that is neither one of these nor kept.
    private static let connection = Array("connection".utf8), referer = Array("referer".utf8)
    private static let userAgent = Array("user-agent".utf8), contentLength = Array("content-length".utf8)
    private static let transferEncoding = Array("transfer-encoding".utf8), httpSlash = Array("HTTP/".utf8)

    /// Whether `name` is `lowercase` (a field name, lowercase) in any case; `exactly`: in
    /// that case only.
    private static func equalsIgnoringCase(_ name: Slice<UnsafeRawBufferPointer>, _ lowercase: [UInt8],
                                           exactly: Bool = false) -> Bool {
        guard name.count == lowercase.count else { return false }
        var index = name.startIndex
        for byte in lowercase {
            let sent = name.base[index]
            guard sent == byte || !exactly && sent >= 0x41 && sent <= 0x5A && sent + 0x20 == byte else { return false }
            index += 1
        }
        return true
    }

    /// Where `byte` first is in `bytes` (a plain loop: the generic `firstIndex(of:)` on a
    /// slice cost a few hundred instructions a call, four calls a request).
    private static func firstIndex(of byte: UInt8, in bytes: Slice<UnsafeRawBufferPointer>) -> Int? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes.base[index] == byte { return index }
            index += 1
        }
        return nil
    }

    private static func digit(_ byte: UInt8) -> Int? { byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil }

    private static func lowercased(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// RFC 9110's tchar: what a method or a field name is made of.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }
}

extension Substring {
    /// Trimmed of spaces and tabs (HTTP's optional white space, RFC 9110, 5.6.3).
    package var trimmingSpaces: Substring { trimming { $0 == " " || $0 == "\t" } }

    /// Trimmed at both ends of the characters `isBlank` says are blank.
    @inline(__always)
    package func trimming(_ isBlank: (Character) -> Bool) -> Substring {
        var result = self
        while let first = result.first, isBlank(first) { result.removeFirst() }
        while let last = result.last, isBlank(last) { result.removeLast() }
        return result
    }
}
