import PokeSyncCore

/// A command line split into positionals, `--option value` pairs and `--flag`s, checked
/// against the options its command declares (``CommandSpec``). Each value is read through
/// the option's declaration, which says what it must be.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// - Throws: `UsageError` for an unknown option, an option without its value, a flag
    ///   with one, or a number of positionals the command does not take.
    init(_ words: ArraySlice<String>, command: CommandSpec) throws {
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
            guard let option = command.option(named: name) else {
                throw UsageError("unknown option --\(name) (see `pokesync help`)")
            }
            if option.isFlag {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else {
                guard let value = inlineValue ?? words.popFirst() else { throw UsageError("--\(name) needs a value") }
                // No option takes an empty value; an empty path would quietly be the current folder.
                guard !value.isEmpty else { throw UsageError("--\(name) needs a value (got an empty one)") }
                values[name] = value
            }
        }
    }

    /// The option's value as given, nil when it was not.
    subscript(option: OptionSpec) -> String? { values[option.name] }

    /// Whether the flag was given.
    func has(_ flag: OptionSpec) -> Bool { flags.contains(flag.name) }

    /// A whole-number option's value, checked as its declaration says; nil when not given.
    /// - Throws: `UsageError` naming what it takes.
    func integer(_ option: OptionSpec) throws -> Int? {
        guard let text = values[option.name] else { return nil }
        switch option.check {
        case .atLeast(let minimum):
            guard let value = Int(text), value >= minimum else {
                throw UsageError("--\(option.name) takes a whole number of at least \(minimum) (got \"\(text)\")")
            }
            return value
        case .wholeNumber(let range):
            guard let value = Int(text), range.contains(value) else {
                throw UsageError("--\(option.name) takes a whole number from \(range.lowerBound) to \(range.upperBound) (got \"\(text)\")")
            }
            return value
        case .text, .number:
            preconditionFailure("--\(option.name) is not declared a whole number")
        }
    }

    /// A number option's value within its declared range; nil when not given.
    /// - Throws: `UsageError` naming the range.
    func number(_ option: OptionSpec) throws -> Double? {
        guard let text = values[option.name] else { return nil }
        guard case .number(let range) = option.check else { preconditionFailure("--\(option.name) is not declared a number") }
        guard let value = Double(text), range.contains(value) else {
            throw UsageError("--\(option.name) takes a number from \(range.lowerBound) to \(range.upperBound) (got \"\(text)\")")
        }
        return value
    }

    /// - Throws: `UsageError` repeating the usage line when the count is not the command's.
    func expectPositionals(_ command: CommandSpec, usage: String? = nil) throws {
        guard command.positionalCount.contains(positionals.count) else { throw UsageError("usage: \(usage ?? command.synopsis)") }
    }
}
