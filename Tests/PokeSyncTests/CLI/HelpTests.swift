import Foundation
import Testing
@testable import pokesync

/// `--help` is true: every option and flag a command accepts is named in its help, which
/// lives beside the option list it parses.
@Suite("Help names every option")
struct HelpTests {
    static let commands: [(topic: String, options: Set<String>, flags: Set<String>)] = [
        ("full", RunCommand.options, RunCommand.flags(.full)), ("sync", RunCommand.options, RunCommand.flags(.sync)),
        ("status", StatusCommand.options, StatusCommand.flags), ("versions", VersionsCommand.options, VersionsCommand.flags),
        ("diff", DiffCommand.options, DiffCommand.flags), ("export", ExportCommand.options, ExportCommand.flags),
        ("verify", VerifyCommand.options, VerifyCommand.flags), ("install", InstallCommand.options, InstallCommand.flags),
        ("show", ShowCommand.options, ShowCommand.flags), ("search", SearchCommand.options, SearchCommand.flags),
        ("prune", PruneCommand.options, PruneCommand.flags), ("serve", ServeCommand.options, ServeCommand.flags),
        ("backup", BackupCommand.options, BackupCommand.flags),
    ]

    @Test(arguments: commands.map(\.topic))
    func everyOptionIsInItsHelp(topic: String) throws {
        let command = try #require(Self.commands.first { $0.topic == topic })
        let help = try #require(Help.topics[topic])
        for name in command.options.union(command.flags).sorted() {
            #expect(help.contains("--\(name)"), "`pokesync help \(topic)` does not name --\(name)")
        }
    }

    /// The usage line (the help's first paragraph, which a usage error repeats) names every
    /// option and flag too; full and sync say `[options]` and list them below it.
    @Test(arguments: commands.map(\.topic))
    func everyOptionIsInItsUsageLine(topic: String) throws {
        let command = try #require(Self.commands.first { $0.topic == topic })
        let synopsis = Help.synopsis(try #require(Help.topics[topic]))
        #expect(synopsis.hasPrefix("pokesync \(topic)"), "\(synopsis)")
        if topic == "full" || topic == "sync" {
            #expect(synopsis.contains("[options]"))
            return
        }
        for name in command.options.union(command.flags).sorted() {
            #expect(synopsis.contains("--\(name)"), "`pokesync \(topic)`'s usage line does not name --\(name): \(synopsis)")
        }
    }

    @Test func everyCommandHasHelp() {
        #expect(Set(Help.topics.keys) == Set(Self.commands.map(\.topic)))
    }
}

/// The card's columns line up in every language: wide characters take two columns.
@Suite("Terminal columns")
struct TerminalColumnsTests {
    @Test func wideCharactersTakeTwoColumns() {
        #expect(TerminalText.padded("공격", toColumns: 16) == "공격" + String(repeating: " ", count: 12))
        #expect(TerminalText.padded("こうげき", toColumns: 16).count == 4 + 8)
        #expect(TerminalText.padded("Attack", toColumns: 16) == "Attack".padding(toLength: 16, withPad: " ", startingAt: 0))
        #expect(TerminalText.padded("Spezialverteidigung", toColumns: 16) == "Spezialverteidig")
        #expect(TerminalText.padded("특수공격특수공격특수", toColumns: 16) == "특수공격특수공격")
        #expect(TerminalText.padded("특수공격특수공격특", toColumns: 17) == "특수공격특수공격 ")
    }
}
