import PokeSyncCore

/// A command line split into positionals, `--option value` pairs and `--flag`s,
/// checked against what the command accepts.
struct Arguments {
    var positionals: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []

    /// - Throws: `UsageError` for an unknown option, or an option without its value.
    init(_ words: ArraySlice<String>, options known: Set<String>, flags knownFlags: Set<String>) throws {
        var words = words[...]
        while let word = words.popFirst() {
            if word == "--" { positionals += words; break }
            guard word.hasPrefix("--"), word.count > 2 else { positionals.append(word); continue }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if knownFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if known.contains(name) {
                guard let value = inlineValue ?? words.popFirst() else { throw UsageError("--\(name) needs a value") }
                // No option takes an empty value; an empty path would quietly be the current folder.
                guard !value.isEmpty else { throw UsageError("--\(name) needs a value (got an empty one)") }
                options[name] = value
            } else {
                throw UsageError("unknown option --\(name) (see `pokesync help`)")
            }
        }
    }

    func integer(_ name: String, minimum: Int = 0) throws -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text), value >= minimum else {
            throw UsageError("--\(name) takes a whole number of at least \(minimum) (got \"\(text)\")")
        }
        return value
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound) (got \"\(text)\")")
        }
        return value
    }

    /// A number within `range` (which also keeps out nan and infinity).
    func number(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text = options[name] else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw UsageError("--\(name) takes a number from \(range.lowerBound) to \(range.upperBound) (got \"\(text)\")")
        }
        return value
    }

    func expectPositionals(_ range: ClosedRange<Int>, usage: String) throws {
        guard range.contains(positionals.count) else { throw UsageError("usage: \(usage)") }
    }
}
