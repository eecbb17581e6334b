import Foundation

/// ASCII bytes the scanner dispatches on.
enum JSONByte {
    static let quote: UInt8 = 0x22, backslash: UInt8 = 0x5C, slash: UInt8 = 0x2F
    static let comma: UInt8 = 0x2C, colon: UInt8 = 0x3A, minus: UInt8 = 0x2D, plus: UInt8 = 0x2B
    static let openBrace: UInt8 = 0x7B, closeBrace: UInt8 = 0x7D
    static let openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D
    static let space: UInt8 = 0x20, tab: UInt8 = 0x09, newline: UInt8 = 0x0A, carriageReturn: UInt8 = 0x0D
    static let zero: UInt8 = 0x30, nine: UInt8 = 0x39, dot: UInt8 = 0x2E
    static let lowerE: UInt8 = 0x65, upperE: UInt8 = 0x45
}

/// What a member of the top-level object means to the scan.
enum TopLevelMemberRole {
    /// `collected`: the member named by `collectUnder`; `collectedAlso`: by `alsoCollectUnder`.
    case other, id, name, collected, collectedAlso
}

/// The single-pass state machine: reads `input`, writes the canonical form to `output`.
///
/// Nesting is tracked in an explicit stack of container kinds, never by recursion, so a
/// hostile input cannot exhaust the thread's stack.
struct CanonicalScanner {
    let input: UnsafePointer<UInt8>
    let count: Int
    var position = 0
    let output: UnsafeMutablePointer<UInt8>
    var written = 0
    let options: CanonicalScanOptions
    var findings = CanonicalScanFindings()

    /// Depth of the collected member's own container; 0 while not inside it.
    var collectDepth = 0
    /// Whether the member being collected is the second one (`alsoCollectUnder`).
    var collectingAlso = false
    /// The key path of the value being read, below the collected member, as UTF-8.
    var pathBytes: [UInt8] = []
    /// For each open container inside the collected member: `pathBytes.count` at its start.
    var pathMarks: [Int] = []
    /// For each open container inside the collected member: the next array index.
    var nextIndices: [Int] = []

    init(input: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>, options: CanonicalScanOptions) {
        self.input = input
        self.count = count
        self.output = output
        self.options = options
    }

    /// Reads exactly one JSON value, with optional whitespace around it.
    mutating func scanDocument() throws(JSONSyntaxError) {
        // isObject[d] tells whether the container at depth d + 1 is an object.
        var isObject = [Bool](repeating: false, count: CanonicalJSON.maximumDepth)
        var depth = 0
        var pendingRole = TopLevelMemberRole.other

        readingValue: while true {
            skipWhitespace()
            guard position < count else { throw .endOfInput(at: position) }
            if collectDepth > 0 && !isObject[depth - 1] { enterArrayElement() }
            let role = pendingRole
            pendingRole = .other
            let byte = input[position]
            switch byte {
            case JSONByte.openBrace, JSONByte.openBracket:
                guard depth < CanonicalJSON.maximumDepth else {
                    throw JSONSyntaxError(offset: position, reason: "nesting deeper than \(CanonicalJSON.maximumDepth)")
                }
                let opensObject = byte == JSONByte.openBrace
                isObject[depth] = opensObject
                depth += 1
                emit(byte)
                position += 1
                if role == .collected || role == .collectedAlso {
                    collectDepth = depth
                    collectingAlso = role == .collectedAlso
                }
                if collectDepth > 0 { enterContainer() }
                skipWhitespace()
                guard position < count else { throw .endOfInput(at: position) }
                let closer = opensObject ? JSONByte.closeBrace : JSONByte.closeBracket
                if input[position] == closer {
                    emit(closer)
                    position += 1
                    depth -= 1
                    if collectDepth > 0 { leaveContainer(newDepth: depth) }
                } else if opensObject {
                    pendingRole = try readKey(depth: depth)
                    continue readingValue
                } else {
                    continue readingValue
                }
            case JSONByte.quote:
                let contents = try readStringValue()
                if role == .name { findings.name = decodeCanonical(contents) }
                if role == .collected || role == .collectedAlso || collectDepth > 0 {
                    let found = CollectedString(path: String(decoding: pathBytes, as: UTF8.self), value: decodeCanonical(contents))
                    if role == .collectedAlso || (collectDepth > 0 && collectingAlso) {
                        findings.collectedAlso.append(found)
                    } else {
                        findings.collected.append(found)
                    }
                }
            case JSONByte.minus, JSONByte.zero...JSONByte.nine:
                let integer = try readNumber(wantsInteger: role == .id)
                if role == .id { findings.id = integer }
            case UInt8(ascii: "t"): try readLiteral("true")
            case UInt8(ascii: "f"): try readLiteral("false")
            case UInt8(ascii: "n"): try readLiteral("null")
            default:
                throw JSONSyntaxError(offset: position, reason: "unexpected \(describe(byte)) where a value should start")
            }

            // A value is complete: close containers, or move to the next member or element.
            while true {
                skipWhitespace()
                if depth == 0 {
                    guard position == count else {
                        throw JSONSyntaxError(offset: position, reason: "unexpected \(describe(input[position])) after the JSON value")
                    }
                    return
                }
                guard position < count else { throw .endOfInput(at: position) }
                let byte = input[position]
                let inObject = isObject[depth - 1]
                if byte == JSONByte.comma {
                    emit(byte)
                    position += 1
                    if inObject {
                        skipWhitespace()
                        pendingRole = try readKey(depth: depth)
                    }
                    continue readingValue
                }
                let closer = inObject ? JSONByte.closeBrace : JSONByte.closeBracket
                guard byte == closer else {
                    let expected = inObject ? "',' or '}'" : "',' or ']'"
                    throw JSONSyntaxError(offset: position, reason: "expected \(expected), found \(describe(byte))")
                }
                emit(byte)
                position += 1
                depth -= 1
                if collectDepth > 0 { leaveContainer(newDepth: depth) }
            }
        }
    }

    /// Reads `"key" :` and tells what the member means when it belongs to the top-level object.
    mutating func readKey(depth: Int) throws(JSONSyntaxError) -> TopLevelMemberRole {
        guard position < count else { throw .endOfInput(at: position) }
        guard input[position] == JSONByte.quote else {
            throw JSONSyntaxError(offset: position, reason: "expected a string key, found \(describe(input[position]))")
        }
        let key = try readString()
        skipWhitespace()
        guard position < count else { throw .endOfInput(at: position) }
        guard input[position] == JSONByte.colon else {
            throw JSONSyntaxError(offset: position, reason: "expected ':', found \(describe(input[position]))")
        }
        emit(JSONByte.colon)
        position += 1
        if collectDepth > 0 { enterMember(key: key) }
        guard depth == 1 else { return .other }
        if outputEquals(key, "id") { return .id }
        if outputEquals(key, "name") { return .name }
        if let collectKey = options.collectKey, outputEquals(key, collectKey) { return .collected }
        if let alsoKey = options.alsoCollectKey, outputEquals(key, alsoKey) { return .collectedAlso }
        return .other
    }

    /// Reads a string value, then strips the API origin from it when it begins with one:
    /// the source's own (which may carry a path, e.g. `https://host/pokeapi`), or any
    /// `http(s)://authority` directly in front of `/api/v2/`, whatever host it names.
    /// - Returns: where the (possibly shortened) contents lie in `output`.
    mutating func readStringValue() throws(JSONSyntaxError) -> Range<Int> {
        let contents = try readString()
        let match = options.strippedMatch
        let cut: Int
        if !match.isEmpty, contents.count >= match.count, outputEquals(contents.prefix(match.count), match) {
            cut = options.strippedOrigin.count
        } else if let origin = anyOriginBeforeAPI(contents) {
            cut = origin
        } else {
            return contents
        }
        // Shift the rest of the string, with its closing quote, over the origin.
        (output + contents.lowerBound).update(from: output + contents.lowerBound + cut,
                                              count: written - contents.lowerBound - cut)
        written -= cut
        return contents.lowerBound ..< contents.upperBound - cut
    }

    /// The length of an `http://` or `https://` origin (scheme and a non-empty authority,
    /// any host and port) that `contents` begins with when `/api/v2/` follows it, else nil.
    ///
    /// A server behind a reverse proxy writes its absolute URLs from the Host header it
    /// got, which may name an internal address: stripping any origin keeps the document's
    /// bytes, and so its hash, the same whichever address served it. Cheap: most strings
    /// fail on their first byte; a URL costs one pass over its authority.
    func anyOriginBeforeAPI(_ contents: Range<Int>) -> Int? {
        let start = contents.lowerBound, end = contents.upperBound
        // "http://" is the shortest scheme part; then at least one authority byte and the API
        // path. Most strings fail on their first byte, before the path is looked up.
        guard end > start, output[start] | 0x20 == 0x68 else { return nil }  // 'h' or 'H'
        let path = Self.apiPath
        guard end - start >= 7 + 1 + path.count else { return nil }
        var cursor = start + 4
        guard output[start + 1] | 0x20 == 0x74, output[start + 2] | 0x20 == 0x74,
              output[start + 3] | 0x20 == 0x70 else { return nil }  // "ttp"
        if output[cursor] | 0x20 == 0x73 { cursor += 1 }  // 's'
        guard cursor + 3 <= end, output[cursor] == JSONByte.colon, output[cursor + 1] == JSONByte.slash,
              output[cursor + 2] == JSONByte.slash else { return nil }
        cursor += 3
        let authority = cursor
        // The authority ends at the first "/"; "?", "#", "\\", a quote, space or control means
        // this is not a plain origin (or the path does not start there).
        while cursor < end {
            let byte = output[cursor]
            if byte == JSONByte.slash { break }
            if byte <= JSONByte.space || byte == 0x3F || byte == 0x23 || byte == JSONByte.backslash
                || byte == JSONByte.quote || byte == 0x40 /* '@': no user info */ { return nil }
            cursor += 1
        }
        guard cursor > authority, end - cursor >= path.count, outputEquals(cursor ..< cursor + path.count, path)
        else { return nil }
        return cursor - start
    }

    /// What must follow a stripped origin: the bytes of ``APIShape/rootPath``.
    static let apiPath = APIShape.rootPathBytes

    /// Validates a number against the JSON grammar and copies it as written.
    /// - Returns: its value when `wantsInteger` and it is an integer that fits an `Int`.
    mutating func readNumber(wantsInteger: Bool) throws(JSONSyntaxError) -> Int? {
        let start = position
        let (cursor, isInteger) = try JSONNumberGrammar.scan(input, count: count, from: start)
        let length = cursor - start
        (output + written).update(from: input + start, count: length)
        written += length
        position = cursor
        guard wantsInteger, isInteger else { return nil }
        return integerValue(from: start, to: cursor)
    }

    /// Checks one of `true`, `false`, `null` and copies it.
    mutating func readLiteral(_ word: StaticString) throws(JSONSyntaxError) {
        let letters = word.utf8Start
        let length = word.utf8CodeUnitCount
        for index in 0..<length {
            guard position + index < count else { throw .endOfInput(at: position + index) }
            guard input[position + index] == letters[index] else {
                throw JSONSyntaxError(offset: position, reason: "invalid literal (expected '\(word)')")
            }
        }
        (output + written).update(from: letters, count: length)
        written += length
        position += length
    }

    private func integerValue(from start: Int, to end: Int) -> Int? {
        let negative = input[start] == JSONByte.minus
        var value = 0
        for index in (negative ? start + 1 : start) ..< end {
            let digit = Int(input[index] &- JSONByte.zero)
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = negative ? shifted.subtractingReportingOverflow(digit)
                                             : shifted.addingReportingOverflow(digit)
            if overflowA || overflowB { return nil }
            value = next
        }
        return value
    }

    @inline(__always)
    mutating func emit(_ byte: UInt8) {
        output[written] = byte
        written += 1
    }

    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    @inline(__always)
    mutating func skipWhitespace() {
        var cursor = position
        // Pretty-printed input indents with runs of spaces: skip them eight at a time.
        while cursor + 8 <= count,
              UnsafeRawPointer(input + cursor).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 {
            cursor += 8
        }
        while cursor < count {
            let byte = input[cursor]
            guard byte == JSONByte.space || byte == JSONByte.newline || byte == JSONByte.carriageReturn || byte == JSONByte.tab else { break }
            cursor += 1
        }
        position = cursor
    }

    /// Tells whether the written bytes in `range` equal `expected`.
    func outputEquals(_ range: Range<Int>, _ expected: [UInt8]) -> Bool {
        guard range.count == expected.count else { return false }
        guard !expected.isEmpty else { return true }
        return expected.withUnsafeBufferPointer { buffer in
            memcmp(output + range.lowerBound, buffer.baseAddress!, range.count) == 0
        }
    }

    func outputEquals(_ range: Range<Int>, _ expected: StaticString) -> Bool {
        range.count == expected.utf8CodeUnitCount
            && memcmp(output + range.lowerBound, expected.utf8Start, range.count) == 0
    }

    /// A byte as an error message shows it: `'x'` when printable ASCII, else hex.
    func describe(_ byte: UInt8) -> String { JSONNumberGrammar.describe(byte) }
}

// MARK: - Key paths below the collected member

extension CanonicalScanner {
    /// A container opens inside the collected member: remember where its path ends.
    mutating func enterContainer() {
        pathMarks.append(pathBytes.count)
        nextIndices.append(0)
    }

    /// A container closes; at the collected member's own end, collecting stops.
    mutating func leaveContainer(newDepth: Int) {
        pathMarks.removeLast()
        nextIndices.removeLast()
        if newDepth < collectDepth {
            collectDepth = 0
            pathBytes.removeAll(keepingCapacity: true)
        }
    }

    /// A member of an object inside the collected member: its key becomes the last path part.
    mutating func enterMember(key: Range<Int>) {
        truncatePathToContainer()
        let decoded = decodeCanonical(key)
        pathBytes.append(contentsOf: decoded.utf8)
    }

    /// An element of an array inside the collected member: its index becomes the last path part.
    mutating func enterArrayElement() {
        truncatePathToContainer()
        let index = nextIndices[nextIndices.count - 1]
        nextIndices[nextIndices.count - 1] = index + 1
        pathBytes.append(contentsOf: String(index).utf8)
    }

    private mutating func truncatePathToContainer() {
        let mark = pathMarks[pathMarks.count - 1]
        pathBytes.removeSubrange(mark...)
        if mark > 0 { pathBytes.append(JSONByte.slash) }
    }

    /// The text of canonical string contents already written to `output`.
    func decodeCanonical(_ range: Range<Int>) -> String {
        JSONStringBytes.decode(UnsafeBufferPointer(start: output + range.lowerBound, count: range.count))
    }
}
