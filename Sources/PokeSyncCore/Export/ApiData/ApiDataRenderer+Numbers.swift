import Foundation

extension ApiDataRenderer {
    /// Reads the number at `position` and writes it as Python would after `json.loads`:
    /// an integer (no fraction, no exponent) as written, but `-0` as `0`; any other number
    /// as `repr(float)`, e.g. `1.50` as `1.5`, `1E+2` as `100.0`, `1e400` as `Infinity`.
    /// Api-data's numbers are Python's own, so each is written as it is stored.
    mutating func writeNumber() throws(JSONSyntaxError) {
        let start = position
        let (cursor, isInteger) = try JSONNumberGrammar.scan(input, count: count, from: start)
        position = cursor
        let text = UnsafeBufferPointer(start: input + start, count: cursor - start)
        if isInteger {
            if text.count == 2 && text[0] == JSONByte.minus && text[1] == JSONByte.zero {
                output[written] = JSONByte.zero
                written += 1
            } else {
                (output + written).update(from: text.baseAddress!, count: text.count)
                written += text.count
            }
            return
        }
        // The grammar was checked above, so Double parses it (correctly rounded, as
        // Python's float() does; too large a magnitude gives an infinity).
        let value = Double(String(decoding: text, as: UTF8.self)) ?? .nan
        for byte in Self.pythonRepr(value).utf8 {
            output[written] = byte
            written += 1
        }
    }

    /// `repr(value)` as Python writes a float, and as `json.dumps` writes it (`Infinity`
    /// and `-Infinity` for infinities): the shortest digits that read back as `value`,
    /// positional with `.0` on whole numbers while the point falls within 4 places before
    /// and 16 after the first digit (`0.0001`, `1000000000000000.0`), else `d.ddde±XX`
    /// (`1e-05`, `1e+16`). The same rules as CPython's `float_repr_style = 'short'`.
    static func pythonRepr(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        let sign = value.sign == .minus ? "-" : ""
        // Swift's description also gives the shortest round-trip digits; only the layout
        // differs. Take the digits and the decimal point's place from it.
        let description = value.magnitude.description
        let parts = description.split(separator: "e", maxSplits: 1)
        let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var digits = Array(mantissa[0].utf8) + (mantissa.count == 2 ? Array(mantissa[1].utf8) : [])
        // value = 0.d1d2d3... x 10^point
        var point = mantissa[0].utf8.count + exponent
        while let first = digits.first, first == JSONByte.zero {
            digits.removeFirst()
            point -= 1
        }
        while let last = digits.last, last == JSONByte.zero { digits.removeLast() }
        if digits.isEmpty { return sign + "0.0" }
        let text = String(decoding: digits, as: UTF8.self)
        if point <= -4 || point > 16 {
            let exponentValue = point - 1
            let head = String(text.prefix(1)), tail = String(text.dropFirst())
            let exponentDigits = String(abs(exponentValue))
            return sign + head + (tail.isEmpty ? "" : "." + tail) + "e" + (exponentValue < 0 ? "-" : "+")
                + (exponentDigits.count < 2 ? "0" : "") + exponentDigits
        }
        if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + text }
        if point >= digits.count { return sign + text + String(repeating: "0", count: point - digits.count) + ".0" }
        return sign + String(text.prefix(point)) + "." + String(text.dropFirst(point))
    }
}
