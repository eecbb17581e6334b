import Foundation

/// The JSON Pointers of the top-most members that differ between two canonical
/// documents, down to `maxDepth` levels (`/moves`, `/sprites/other/home`).
///
/// Members are compared as bytes; two byte-different values are confirmed with
/// JSONSerialization before they count, so reordered keys deep inside a value are
/// not a change. An empty result means the documents are equal as JSON.
enum DocumentDiff {
    static let maxDepth = 3

    static func changedPaths(_ old: [UInt8], _ new: [UInt8]) -> [String] {
        if old == new { return [] }
        var paths: [String] = []
        compare(old, 0..<old.count, new, 0..<new.count, prefix: "", depth: 1, into: &paths)
        return paths
    }

    private static func compare(_ old: [UInt8], _ oldRange: Range<Int>, _ new: [UInt8], _ newRange: Range<Int>,
                                prefix: String, depth: Int, into paths: inout [String]) {
        guard let oldMembers = JSONMembers.split(old, oldRange), let newMembers = JSONMembers.split(new, newRange) else {
            if !jsonEqual(old[oldRange], new[newRange]) { paths.append(prefix.isEmpty ? "" : prefix) }
            return
        }
        let oldByKey = Dictionary(oldMembers.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let newByKey = Dictionary(newMembers.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        // New documents' key order first, then keys only the old one had.
        let keys = newMembers.map(\.key) + oldMembers.map(\.key).filter { newByKey[$0] == nil }
        for key in keys {
            let path = prefix + "/" + escape(key)
            guard let oldValue = oldByKey[key], let newValue = newByKey[key] else {
                paths.append(path)
                continue
            }
            if old[oldValue].elementsEqual(new[newValue]) { continue }
            let bothObjects = old[oldValue.lowerBound] == UInt8(ascii: "{") && new[newValue.lowerBound] == UInt8(ascii: "{")
            if bothObjects && depth < maxDepth {
                compare(old, oldValue, new, newValue, prefix: path, depth: depth + 1, into: &paths)
            } else if !valueEqual(old, oldValue, new, newValue) {
                paths.append(path)
            }
        }
    }

    /// Equality as JSON values. Arrays are compared element by element as bytes, so
    /// that only the few elements that differ in bytes are parsed (a pokemon's `moves`
    /// runs to hundreds of kilobytes).
    static func valueEqual(_ old: [UInt8], _ oldRange: Range<Int>, _ new: [UInt8], _ newRange: Range<Int>) -> Bool {
        guard let oldElements = JSONMembers.elements(old, oldRange),
              let newElements = JSONMembers.elements(new, newRange) else {
            return jsonEqual(old[oldRange], new[newRange])
        }
        guard oldElements.count == newElements.count else { return false }
        return zip(oldElements, newElements).allSatisfy { first, second in
            old[first].elementsEqual(new[second]) || jsonEqual(old[first], new[second])
        }
    }

    /// Equality as JSON values (order of keys ignored).
    static func jsonEqual(_ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8>) -> Bool {
        if first.elementsEqual(second) { return true }
        let options: JSONSerialization.ReadingOptions = [.fragmentsAllowed]
        guard let a = try? JSONSerialization.jsonObject(with: Data(first), options: options),
              let b = try? JSONSerialization.jsonObject(with: Data(second), options: options) else { return false }
        return valuesEqual(a, b)
    }

    /// Deep equality of JSONSerialization values; object members in any order.
    static func valuesEqual(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case let (x as [String: Any], y as [String: Any]):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { valuesEqual(value, $0) } ?? false }
        case let (x as [Any], y as [Any]):
            return x.count == y.count && zip(x, y).allSatisfy { valuesEqual($0, $1) }
        case let (x as String, y as String):
            return x == y
        case let (x as NSNumber, y as NSNumber):
            return x == y
        case (is NSNull, is NSNull):
            return true
        default:
            return false
        }
    }

    /// JSON Pointer escaping (RFC 6901).
    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
