/// One option a command takes, declared once: the parser accepts it, the usage line and
/// the help show it, and its typed accessor on ``Arguments`` checks its value by ``check``.
struct OptionSpec: Sendable {
    /// The name without its leading `--`.
    let name: String
    /// The value's placeholder in the usage line and the help (`N`, `URL|DIR`); nil for a
    /// flag, which takes no value.
    let value: String?
    /// What a value must be; said by ``Arguments``'s accessors in the usage error (64).
    let check: ValueCheck
    /// The default the help shows, read from the constant the code uses (a test holds
    /// the two together); nil when it has none, or it is not a single value.
    let shownDefault: String?
    /// The help's lines for it, without their indentation.
    let help: String

    /// What an option's value must be.
    enum ValueCheck: Sendable {
        /// Any text but an empty one (the parser refuses that for every option).
        case text
        /// A whole number at least this.
        case atLeast(Int)
        /// A whole number in this range.
        case wholeNumber(ClosedRange<Int>)
        /// A number in this range (which also keeps out nan and infinity).
        case number(ClosedRange<Double>)
    }

    /// `--name VALUE`.
    static func option(_ name: String, _ value: String, _ check: ValueCheck = .text, default shownDefault: String? = nil,
                       help: String = "") -> OptionSpec {
        OptionSpec(name: name, value: value, check: check, shownDefault: shownDefault, help: help)
    }

    /// `--name`, which takes no value.
    static func flag(_ name: String, help: String = "") -> OptionSpec {
        OptionSpec(name: name, value: nil, check: .text, shownDefault: nil, help: help)
    }

    var isFlag: Bool { value == nil }
    /// `--name VALUE`, or `--name` for a flag.
    var label: String { "--\(name)" + (value.map { " \($0)" } ?? "") }
}

/// A command's declaration: the options it takes, how many positionals, its usage line
/// and its help. The parser (``Arguments``), `--help` and `pokesync help COMMAND` read it.
struct CommandSpec: Sendable {
    /// A term of the usage line after the positionals.
    enum UsageTerm: Sendable {
        /// `[--name VALUE]`.
        case optional(OptionSpec)
        /// `--name VALUE`: the command refuses to run without it.
        case required(OptionSpec)
        /// `[--one | --other]`.
        case either(OptionSpec, OptionSpec)
        /// `[options]`: the options the help lists below (full and sync).
        case listedBelow
    }

    /// A part of the help after the usage line.
    enum Section: Sendable {
        /// Lines as they are.
        case text(String)
        /// Options, each as its label and its help lines in a column.
        case options([OptionSpec])
    }

    let name: String
    /// The positionals as the usage line names them (`NAME|ID`, `[FROM [TO]]`), or "".
    let positionals: String
    let positionalCount: ClosedRange<Int>
    let usage: [UsageTerm]
    let sections: [Section]
    /// Where options' help lines start in the help.
    var helpColumn = 26

    /// Every option and flag the command takes, in the order of its usage line then its help.
    var options: [OptionSpec] {
        var all: [OptionSpec] = []
        func add(_ option: OptionSpec) { if !all.contains(where: { $0.name == option.name }) { all.append(option) } }
        for term in usage {
            switch term {
            case .optional(let option), .required(let option): add(option)
            case .either(let one, let other): add(one); add(other)
            case .listedBelow: break
            }
        }
        for case .options(let list) in sections { list.forEach(add) }
        return all
    }

    func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }

    /// `pokesync export [--version N] ...` on one line: what a usage error repeats.
    var synopsis: String {
        (["pokesync", name] + (positionals.isEmpty ? [] : [positionals]) + usage.map(\.text)).joined(separator: " ")
    }

    /// The usage line, wrapped under the command's name past ``HelpLayout/usageWidth`` columns.
    var usageLines: String {
        let lead = "usage: pokesync \(name) "
        var lines: [String] = []
        var line = lead + positionals
        for term in usage.map(\.text) {
            if line.count + 1 + term.count > HelpLayout.usageWidth, line.count > lead.count {
                lines.append(line)
                line = String(repeating: " ", count: lead.count) + term
            } else {
                line += (line == lead ? "" : " ") + term
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// `pokesync help NAME` and `pokesync NAME --help`.
    var help: String {
        let parts = sections.map { section -> String in
            switch section {
            case .text(let text): text
            case .options(let list): list.map { HelpLayout.lines(for: $0, column: helpColumn) }.joined(separator: "\n")
            }
        }
        return ([usageLines + "\n"] + parts).joined(separator: "\n")
    }
}

extension CommandSpec.UsageTerm {
    var text: String {
        switch self {
        case .optional(let option): "[\(option.label)]"
        case .required(let option): option.label
        case .either(let one, let other): "[\(one.label) | \(other.label)]"
        case .listedBelow: "[options]"
        }
    }
}

/// How the help lays an option out: `  --name VALUE` then its help from a column, its
/// further lines under the first; a label too long for the column has its help below it.
enum HelpLayout {
    /// A usage line is wrapped before a term would take it past this many columns.
    static let usageWidth = 98

    static func lines(for option: OptionSpec, column: Int) -> String {
        let label = "  " + option.label
        let indent = String(repeating: " ", count: column)
        let helpLines = option.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = helpLines.first, !first.isEmpty else { return label }
        let rest = helpLines.dropFirst().map { indent + $0 }
        if label.count + 1 > column { return ([label, indent + first] + rest).joined(separator: "\n") }
        return ([label + String(repeating: " ", count: column - label.count) + first] + rest).joined(separator: "\n")
    }
}

extension OptionSpec {
    /// `--mirror DIR`, which every command that reads or tends a mirror takes.
    static let mirror = OptionSpec.option("mirror", "DIR", help: "the mirror folder")
    /// `--json`: the output as JSON.
    static let json = OptionSpec.flag("json")
}
