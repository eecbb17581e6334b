/// The JSON number grammar (RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`),
/// checked in place over raw bytes, for both scanners that copy numbers: the canonical
/// scanner (which copies them as written) and the api-data renderer (which writes
/// non-integers as Python does).
enum JSONNumberGrammar {
    /// Where the number starting at `start` ends, and whether it is an integer (no
    /// fraction, no exponent).
    /// - Throws: `JSONSyntaxError` at the first byte that breaks the grammar, or
    ///   `endOfInput` when the input ends inside the number.
    @inline(__always)
    static func scan(_ input: UnsafePointer<UInt8>, count: Int, from start: Int) throws(JSONSyntaxError) -> (end: Int, isInteger: Bool) {
        var cursor = start
        if input[cursor] == JSONByte.minus { cursor += 1 }
        guard cursor < count else { throw .endOfInput(at: cursor) }
        if input[cursor] == JSONByte.zero {
            cursor += 1
            if cursor < count, isDigit(input[cursor]) {
                throw JSONSyntaxError(offset: cursor - 1, reason: "number with a leading zero")
            }
        } else {
            guard isDigit(input[cursor]) else {
                throw JSONSyntaxError(offset: cursor, reason: "expected a digit, found \(describe(input[cursor]))")
            }
            cursor = skipDigits(input, count: count, from: cursor)
        }
        var isInteger = true
        if cursor < count, input[cursor] == JSONByte.dot {
            isInteger = false
            cursor = try requireDigits(input, count: count, from: cursor + 1, after: "the decimal point")
        }
        if cursor < count, input[cursor] == JSONByte.lowerE || input[cursor] == JSONByte.upperE {
            isInteger = false
            cursor += 1
            if cursor < count, input[cursor] == JSONByte.plus || input[cursor] == JSONByte.minus { cursor += 1 }
            cursor = try requireDigits(input, count: count, from: cursor, after: "the exponent mark")
        }
        return (cursor, isInteger)
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- JSONByte.zero < 10 }

    /// A byte as an error message shows it: `'x'` when printable ASCII, else hex.
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private static func skipDigits(_ input: UnsafePointer<UInt8>, count: Int, from start: Int) -> Int {
        var cursor = start
        while cursor < count, isDigit(input[cursor]) { cursor += 1 }
        return cursor
    }

    private static func requireDigits(_ input: UnsafePointer<UInt8>, count: Int, from start: Int,
                                      after what: String) throws(JSONSyntaxError) -> Int {
        guard start < count else { throw .endOfInput(at: start) }
        guard isDigit(input[start]) else {
            throw JSONSyntaxError(offset: start, reason: "expected a digit after \(what), found \(describe(input[start]))")
        }
        return skipDigits(input, count: count, from: start + 1)
    }
}
