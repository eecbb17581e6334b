/// Splits canonical JSON (no whitespace outside strings, see `CanonicalJSON`) into
/// the members of an object, as byte ranges, without parsing the values. Comparing
/// members as bytes is what makes diffing thousands of large documents cheap.
enum JSONMembers {
    struct Member {
        /// The key as written between the quotes (PokeAPI keys need no unescaping).
        var key: String
        var value: Range<Int>
    }

    /// The members of the object spanning `range`, or nil when it is not an object.
    static func split(_ bytes: [UInt8], _ range: Range<Int>) -> [Member]? {
        guard range.count >= 2, bytes[range.lowerBound] == UInt8(ascii: "{"),
              bytes[range.upperBound - 1] == UInt8(ascii: "}") else { return nil }
        var members: [Member] = []
        var index = range.lowerBound + 1
        let end = range.upperBound - 1
        while index < end {
            guard bytes[index] == UInt8(ascii: "\"") else { return nil }
            let keyEnd = endOfString(bytes, from: index)
            let key = String(decoding: bytes[(index + 1)..<(keyEnd - 1)], as: UTF8.self)
            guard keyEnd < end, bytes[keyEnd] == UInt8(ascii: ":") else { return nil }
            let valueStart = keyEnd + 1
            let valueEnd = endOfValue(bytes, from: valueStart, limit: end)
            members.append(Member(key: key, value: valueStart..<valueEnd))
            index = valueEnd
            if index < end, bytes[index] == UInt8(ascii: ",") { index += 1 }
        }
        return members
    }

    /// The elements of the array spanning `range`, or nil when it is not an array.
    static func elements(_ bytes: [UInt8], _ range: Range<Int>) -> [Range<Int>]? {
        guard range.count >= 2, bytes[range.lowerBound] == UInt8(ascii: "["),
              bytes[range.upperBound - 1] == UInt8(ascii: "]") else { return nil }
        var elements: [Range<Int>] = []
        var index = range.lowerBound + 1
        let end = range.upperBound - 1
        while index < end {
            let valueEnd = endOfValue(bytes, from: index, limit: end)
            guard valueEnd > index else { return nil }
            elements.append(index..<valueEnd)
            index = valueEnd
            if index < end, bytes[index] == UInt8(ascii: ",") { index += 1 }
        }
        return elements
    }

    /// The index just past the string starting at `start` (a quote).
    static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    /// The index just past the value starting at `start`: a string, a container
    /// (matched by depth, skipping strings) or a scalar (up to `,` `}` `]`).
    static func endOfValue(_ bytes: [UInt8], from start: Int, limit: Int) -> Int {
        guard start < limit else { return limit }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return endOfString(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < limit {
                switch bytes[index] {
                case UInt8(ascii: "\""): index = endOfString(bytes, from: index); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return limit
        default:
            var index = start
            while index < limit, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}"),
                  bytes[index] != UInt8(ascii: "]") { index += 1 }
            return index
        }
    }
}
