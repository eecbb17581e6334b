import Foundation
import PokeHTTP
import PokeSyncCore

/// `?limit=L&offset=O` as Django REST framework's LimitOffsetPagination reads and
/// writes it: the limit is 20 unless a positive integer is given, the offset 0 unless a
/// non-negative integer is; `next` and `previous` carry both, sorted (`?limit=20&offset=40`);
/// `previous` drops `offset` when it would be 0; either is null past its end.
///
/// Numbers keep their decimal text (Python's ints have no upper bound), so
/// `offset=99999999999999999999` pages to an empty list whose `previous` is that minus the limit.
/// Other query parameters are carried into the links, sorted with the two by name and
/// encoded as Python's `urlencode` does (DRF's `replace_query_param`).
struct Pagination: Equatable {
    static let defaultLimit = 20

    /// Decimal digits without leading zeros ("0" for zero).
    var limit: String
    var offset: String
    /// The request's other parameters, decoded, in their order (names and values).
    var others: [[String]] = []

    init(query: String?) {
        var limitText: String?, offsetText: String?
        for pair in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.formDecoded(parts[0])
            let value = parts.count > 1 ? Self.formDecoded(parts[1]) : ""
            // The last one wins, as with Django's QueryDict.
            if name == "limit" { limitText = value } else if name == "offset" { offsetText = value } else {
                others.append([name, value])
            }
        }
        let limit = limitText.flatMap(Self.integer)
        self.limit = limit.flatMap { $0 == "0" ? nil : $0 } ?? String(Self.defaultLimit)
        offset = offsetText.flatMap(Self.integer) ?? "0"
    }

    init(limit: Int, offset: Int) {
        self.limit = String(limit)
        self.offset = String(offset)
    }

    /// The other parameters as they go in a link (and in the cache key of a page).
    var othersQuery: String { Self.encoded(others) }

    /// `limit`, `offset` (unless nil) and the other parameters, sorted by name (by code
    /// point; one name's values keep their order), `quote_plus`-encoded.
    private func query(offset: String?) -> String {
        var pairs = others + [["limit", limit]]
        if let offset { pairs.append(["offset", offset]) }
        let sorted = pairs.enumerated().sorted { left, right in
            let (a, b) = (left.element[0].unicodeScalars, right.element[0].unicodeScalars)
            if a.elementsEqual(b) { return left.offset < right.offset }
            return a.lexicographicallyPrecedes(b)
        }.map(\.element)
        return Self.encoded(sorted)
    }

    private static func encoded(_ pairs: [[String]]) -> String {
        pairs.map { quotePlus($0[0]) + "=" + quotePlus($0[1]) }.joined(separator: "&")
    }

    /// Python's `quote_plus` with nothing safe: letters, digits and `_.-~` as they are,
    /// a space as `+`, every other UTF-8 byte as `%XX`.
    static func quotePlus(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x20: result += "+"
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }

    /// The range of a list of `count` entries this page shows (empty past the end).
    func range(count: Int) -> Range<Int> {
        guard let start = Int(offset), start < count else { return count ..< count }
        guard let length = Int(limit) else { return start ..< count }
        return start ..< (length >= count - start ? count : start + length)
    }

    /// The next page's query, or nil when this one reaches the end.
    func nextQuery(count: Int) -> String? {
        guard let start = Int(offset), let length = Int(limit) else { return nil }
        let (end, overflow) = start.addingReportingOverflow(length)
        guard !overflow, end < count else { return nil }
        return query(offset: String(end))
    }

    /// The previous page's query, or nil on the first page.
    var previousQuery: String? {
        guard offset != "0" else { return nil }
        guard let rest = Self.subtract(offset, limit) else { return query(offset: nil) }
        return query(offset: rest)
    }

    /// Python's `int(text)` for what it accepts that matters here (surrounding blanks, a
    /// sign, digits), as normalized digits; nil for anything else or a negative number.
    static func integer(_ text: String) -> String? {
        var digits = Substring(text).trimmingWhitespace
        if digits.first == "+" { digits.removeFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        while digits.count > 1 && digits.first == "0" { digits.removeFirst() }
        return String(digits)
    }

    /// `a - b` for decimal texts, or nil when it is not positive.
    static func subtract(_ a: String, _ b: String) -> String? {
        let x = Array(a.utf8).map { Int($0) - 48 }, y = Array(b.utf8).map { Int($0) - 48 }
        guard x.count > y.count || x.count == y.count && x.lexicographicallyPrecedes(y) == false && x != y else { return nil }
        var result: [Int] = []
        var borrow = 0
        for index in 0 ..< x.count {
            var digit = x[x.count - 1 - index] - borrow - (index < y.count ? y[y.count - 1 - index] : 0)
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 10 }
            result.append(digit)
        }
        while result.count > 1 && result.last == 0 { result.removeLast() }
        return String(result.reversed().map { Character(String($0)) })
    }

    /// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte.
    static func formDecoded(_ text: Substring) -> String {
        percentDecoded(text.replacingOccurrences(of: "+", with: " ")) ?? String(text)
    }
}

/// `%XX` escapes decoded as UTF-8 (invalid sequences become U+FFFD); nil when an escape is malformed.
func percentDecoded(_ text: some StringProtocol) -> String? {
    // In place when the text is contiguous (a path always is): no escape, no copy.
    guard text.utf8.withContiguousStorageIfAvailable({ $0.contains(0x25) }) ?? text.utf8.contains(0x25) else { return String(text) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
        guard byte == 0x25 else { bytes.append(byte); continue }
        guard let high = iterator.next().flatMap(JSONStringBytes.hexValue),
              let low = iterator.next().flatMap(JSONStringBytes.hexValue) else { return nil }
        bytes.append(high << 4 | low)
    }
    return String(decoding: bytes, as: UTF8.self)
}

extension Substring {
    /// Trimmed of ASCII white space (what Python's `int()` allows around digits).
    var trimmingWhitespace: Substring {
        trimming { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" }
    }
}
