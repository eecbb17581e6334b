import Foundation

/// A JSON value exactly as written, so that `mirror.json` can tell `1` from `1.5`,
/// `true` and `"1"`, and name the key whose value is of the wrong kind.
enum ConfigValue: Decodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([ConfigValue])
    case object([String: ConfigValue])

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { self = .null }
        else if let value = try? single.decode(Bool.self) { self = .bool(value) }
        else if let value = try? single.decode(Int.self) { self = .integer(value) }
        else if let value = try? single.decode(Double.self) { self = .number(value) }
        else if let value = try? single.decode(String.self) { self = .string(value) }
        else if let value = try? single.decode([ConfigValue].self) { self = .array(value) }
        else { self = .object(try single.decode([String: ConfigValue].self)) }
    }

    /// The value as it would be written, for "(got ...)" in messages.
    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return String(value)
        case .integer(let value): return String(value)
        case .number(let value): return String(value)
        case .string(let value): return "\"\(value)\""
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}

/// Takes the keys of one `mirror.json` object one by one, checking each; `finish()`
/// reports whatever is left over (an unknown key, most likely a typo).
struct ConfigReader {
    var members: [String: ConfigValue]
    /// The dotted path of this object, e.g. `retry.`.
    let prefix: String
    let file: String
    private(set) var known: [String] = []

    init(members: [String: ConfigValue], prefix: String, file: String) {
        self.members = members
        self.prefix = prefix
        self.file = file
    }

    /// The value of `key`, or nil when absent or `null` (the default stands).
    mutating func take(_ key: String) -> ConfigValue? {
        known.append(key)
        guard let value = members.removeValue(forKey: key), !isNull(value) else { return nil }
        return value
    }

    func failure(_ key: String, _ expected: String, got value: ConfigValue) -> ConfigError {
        ConfigError("\(file): \"\(prefix)\(key)\" must be \(expected) (got \(value))")
    }

    mutating func string(_ key: String) throws -> String? {
        guard let value = take(key) else { return nil }
        guard case .string(let text) = value, !text.isEmpty else { throw failure(key, "a non-empty string", got: value) }
        return text
    }

    mutating func strings(_ key: String) throws -> [String]? {
        guard let value = take(key) else { return nil }
        guard case .array(let items) = value else { throw failure(key, "a list of strings", got: value) }
        return try items.map { item in
            guard case .string(let text) = item, !text.isEmpty else { throw failure(key, "a list of non-empty strings", got: item) }
            return text
        }
    }

    mutating func integer(_ key: String, _ range: ClosedRange<Int>) throws -> Int? {
        guard let value = take(key) else { return nil }
        let expected = range.upperBound == Int.max ? "a whole number of at least \(range.lowerBound)"
            : "a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard case .integer(let number) = value, range.contains(number) else { throw failure(key, expected, got: value) }
        return number
    }

    mutating func number(_ key: String, _ range: ClosedRange<Double>) throws -> Double? {
        guard let value = take(key) else { return nil }
        let number: Double
        switch value {
        case .integer(let whole): number = Double(whole)
        case .number(let fraction): number = fraction
        default: number = .nan
        }
        guard range.contains(number) else {
            throw failure(key, "a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))", got: value)
        }
        return number
    }

    mutating func object(_ key: String) throws -> ConfigReader? {
        guard let value = take(key) else { return nil }
        guard case .object(let inner) = value else { throw failure(key, "an object", got: value) }
        return ConfigReader(members: inner, prefix: "\(prefix)\(key).", file: file)
    }

    /// - Throws: `ConfigError` naming the first unknown key and the known ones.
    func finish() throws {
        guard let unknown = members.keys.sorted().first else { return }
        throw ConfigError("\(file): unknown key \"\(prefix)\(unknown)\" (known: \(known.map { prefix + $0 }.joined(separator: ", ")))")
    }

    private func isNull(_ value: ConfigValue) -> Bool {
        if case .null = value { return true }
        return false
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
