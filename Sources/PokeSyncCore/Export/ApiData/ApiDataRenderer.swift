import Foundation

/// An open container while rendering.
struct ApiDataContainer {
    /// An object (else an array).
    var isObject: Bool
    /// Objects: the index in `members` of the object's first member.
    var firstMember: Int
    /// Objects: the members so far came in strictly increasing key order, so the object's
    /// rendering needs no reordering (always true for documents that came from api-data).
    var sorted: Bool
}

/// A member of an open object: its key in the input, its rendering in the output.
struct ApiDataMember {
    /// The key's contents (between the quotes) in the input.
    var keyStart: Int, keyEnd: Int
    /// The key holds a backslash, so it compares by its decoded text.
    var keyEscaped: Bool
    /// The member's rendering: the newline and indent, the key, `": "`, the value.
    var outputStart: Int, outputEnd: Int
}

/// The single pass from JSON to upstream's bytes.
///
/// Not recursive: nesting lives in `containers`, so no document can exhaust the thread's
/// stack. Members are written in the order they come; an object whose keys did not come
/// sorted is reordered in place when it closes (its members' renderings are moved, never
/// rendered twice), so documents that are already sorted, as api-data's are, cost no
/// sorting at all. Every read is bounds-checked against `count`: invalid JSON throws.
struct ApiDataRenderer {
    let input: UnsafePointer<UInt8>
    let count: Int
    var position = 0
    /// The output buffer, owned by the `ApiDataJSONWriter` (reallocated here when it grows).
    var output: UnsafeMutablePointer<UInt8>
    var capacity: Int
    var written = 0
    /// See `ApiDataJSONWriter.basePrefix`.
    let basePrefix: [UInt8]
    var containers: [ApiDataContainer] = []
    var members: [ApiDataMember] = []
    var scratch: [UInt8] = []
    var order: [Int] = []

    init(input: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>, capacity: Int, basePrefix: [UInt8]) {
        self.input = input
        self.count = count
        self.output = output
        self.capacity = capacity
        self.basePrefix = basePrefix
    }

    /// Renders exactly one JSON value, with optional whitespace around it.
    ///
    /// Output space: before each value's line (and at the start) `reserve` makes room for
    /// six times the rest of the input plus the line's indent: no string, number or
    /// literal renders to more than six times its input (a raw U+007F becomes `\u007f`,
    /// a two-byte character six bytes), so the writes in between need no checks.
    mutating func renderDocument() throws(JSONSyntaxError) {
        reserveForRest()
        readingValue: while true {
            skipWhitespace()
            guard position < count else { throw .endOfInput(at: position) }
            let byte = input[position]
            switch byte {
            case JSONByte.openBrace, JSONByte.openBracket:
                let isObject = byte == JSONByte.openBrace
                let closer = isObject ? JSONByte.closeBrace : JSONByte.closeBracket
                position += 1
                skipWhitespace()
                guard position < count else { throw .endOfInput(at: position) }
                output[written] = byte
                written += 1
                if input[position] == closer {
                    output[written] = closer
                    written += 1
                    position += 1
                } else {
                    containers.append(ApiDataContainer(isObject: isObject, firstMember: members.count, sorted: true))
                    reserveForRest()
                    if isObject { try startMember() } else { writeLineStart(depth: containers.count) }
                    continue readingValue
                }
            case JSONByte.quote:
                _ = try writeString(isValue: true)
            case JSONByte.minus, JSONByte.zero...JSONByte.nine:
                try writeNumber()
            case UInt8(ascii: "t"): try copyLiteral("true")
            case UInt8(ascii: "f"): try copyLiteral("false")
            case UInt8(ascii: "n"): try copyLiteral("null")
            default:
                throw JSONSyntaxError(offset: position, reason: "unexpected \(describe(byte)) where a value should start")
            }

            // A value is complete: close containers, or go on to the next member or element.
            while true {
                skipWhitespace()
                guard let container = containers.last else {
                    guard position == count else {
                        throw JSONSyntaxError(offset: position, reason: "unexpected \(describe(input[position])) after the JSON value")
                    }
                    return
                }
                guard position < count else { throw .endOfInput(at: position) }
                let byte = input[position]
                position += 1
                if byte == JSONByte.comma {
                    if container.isObject { members[members.count - 1].outputEnd = written }
                    reserveForRest()
                    output[written] = JSONByte.comma
                    written += 1
                    if container.isObject {
                        skipWhitespace()
                        try startMember()
                    } else {
                        writeLineStart(depth: containers.count)
                    }
                    continue readingValue
                }
                let closer = container.isObject ? JSONByte.closeBrace : JSONByte.closeBracket
                guard byte == closer else {
                    let expected = container.isObject ? "',' or '}'" : "',' or ']'"
                    throw JSONSyntaxError(offset: position - 1, reason: "expected \(expected), found \(describe(byte))")
                }
                if container.isObject {
                    members[members.count - 1].outputEnd = written
                    if !container.sorted { reorderMembers(from: container.firstMember) }
                    members.removeSubrange(container.firstMember...)
                }
                containers.removeLast()
                reserve(4 * containers.count + 16)
                writeLineStart(depth: containers.count)
                output[written] = closer
                written += 1
            }
        }
    }

    /// Reads `"key":` at `position` and writes the member's line up to its value,
    /// `\n`, the indent, the key and `": "`, noting the member.
    private mutating func startMember() throws(JSONSyntaxError) {
        guard position < count else { throw .endOfInput(at: position) }
        guard input[position] == JSONByte.quote else {
            throw JSONSyntaxError(offset: position, reason: "expected a string key, found \(describe(input[position]))")
        }
        let outputStart = written
        writeLineStart(depth: containers.count)
        let keyStart = position + 1
        let keyEscaped = try writeString(isValue: false)
        let member = ApiDataMember(keyStart: keyStart, keyEnd: position - 1, keyEscaped: keyEscaped,
                                   outputStart: outputStart, outputEnd: outputStart)
        let depth = containers.count - 1
        if containers[depth].sorted, members.count > containers[depth].firstMember,
           Self.compareKeys(members[members.count - 1], member, in: input) >= 0 {
            containers[depth].sorted = false
        }
        members.append(member)
        skipWhitespace()
        guard position < count else { throw .endOfInput(at: position) }
        guard input[position] == JSONByte.colon else {
            throw JSONSyntaxError(offset: position, reason: "expected ':', found \(describe(input[position]))")
        }
        position += 1
        output[written] = JSONByte.colon
        output[written + 1] = JSONByte.space
        written += 2
    }

    /// Puts the members of the object that has just ended, from `first` on, in key order,
    /// keeping the last of equal keys, as Python's `dict` and `sort_keys` do.
    private mutating func reorderMembers(from first: Int) {
        let bodyStart = members[first].outputStart
        let bodyEnd = members[members.count - 1].outputEnd
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: output + bodyStart, count: bodyEnd - bodyStart))
        // Sorted out of `self` (the comparison reads it), then handed back for its capacity.
        var order = self.order
        self.order = []
        defer { self.order = order }
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: first ..< members.count)
        let members = self.members, input = self.input
        order.sort { left, right in
            let comparison = Self.compareKeys(members[left], members[right], in: input)
            return comparison != 0 ? comparison < 0 : left < right
        }
        var cursor = bodyStart
        scratch.withUnsafeBufferPointer { saved in
            for (rank, index) in order.enumerated() {
                if rank + 1 < order.count, Self.compareKeys(members[index], members[order[rank + 1]], in: input) == 0 { continue }
                if cursor != bodyStart {
                    output[cursor] = JSONByte.comma
                    cursor += 1
                }
                let member = members[index]
                let length = member.outputEnd - member.outputStart
                (output + cursor).update(from: saved.baseAddress! + (member.outputStart - bodyStart), count: length)
                cursor += length
            }
        }
        written = cursor
    }

    /// Orders two keys by code point, as Python compares `str`: UTF-8 bytes compare in
    /// code point order, so unescaped keys compare as they are. Static, so that calling it
    /// from a mutating method never copies the renderer.
    static func compareKeys(_ left: ApiDataMember, _ right: ApiDataMember, in input: UnsafePointer<UInt8>) -> Int {
        guard left.keyEscaped || right.keyEscaped else {
            let leftCount = left.keyEnd - left.keyStart, rightCount = right.keyEnd - right.keyStart
            let common = memcmp(input + left.keyStart, input + right.keyStart, min(leftCount, rightCount))
            return common != 0 ? Int(common) : leftCount - rightCount
        }
        let leftBytes = decodedKey(left, in: input), rightBytes = decodedKey(right, in: input)
        for (a, b) in zip(leftBytes, rightBytes) where a != b { return a < b ? -1 : 1 }
        return leftBytes.count - rightBytes.count
    }

    // MARK: - Output

    /// Makes room for six times the rest of the input and a line of the current depth.
    @inline(__always)
    mutating func reserveForRest() {
        reserve(6 * (count - position) + 4 * containers.count + basePrefix.count + 64)
    }

    /// Makes sure `extra` more bytes fit in `output`, reallocating it when they do not.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if written + extra > capacity { grow(to: written + extra) }
    }

    private mutating func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: output, count: written)
        output.deallocate()
        output = bigger
        capacity = newCapacity
    }

    /// Writes a newline and four spaces per level. May write up to 7 spaces past the end
    /// (inside the reserved slack), overwritten by what follows.
    @inline(__always)
    mutating func writeLineStart(depth: Int) {
        output[written] = JSONByte.newline
        var cursor = written + 1
        let end = cursor + 4 * depth
        while cursor < end {
            UnsafeMutableRawPointer(output + cursor).storeBytes(of: 0x2020_2020_2020_2020 as UInt64, as: UInt64.self)
            cursor += 8
        }
        written = end
    }

    /// Checks one of `true`, `false`, `null` at `position` and copies it.
    private mutating func copyLiteral(_ word: StaticString) throws(JSONSyntaxError) {
        let length = word.utf8CodeUnitCount
        guard position + length <= count else { throw .endOfInput(at: count) }
        guard memcmp(input + position, word.utf8Start, length) == 0 else {
            throw JSONSyntaxError(offset: position, reason: "invalid literal (expected '\(word)')")
        }
        (output + written).update(from: word.utf8Start, count: length)
        written += length
        position += length
    }

    /// Skips JSON whitespace (none in canonical input: one comparison).
    @inline(__always)
    mutating func skipWhitespace() {
        while position < count {
            let byte = input[position]
            guard byte == JSONByte.space || byte == JSONByte.newline || byte == JSONByte.carriageReturn
                    || byte == JSONByte.tab else { return }
            position += 1
        }
    }

    /// A byte as an error message shows it: `'x'` when printable ASCII, else hex.
    func describe(_ byte: UInt8) -> String { JSONNumberGrammar.describe(byte) }
}
