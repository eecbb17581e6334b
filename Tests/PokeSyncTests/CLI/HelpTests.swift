import Foundation
import PokedexReader
import PokedexUpdater
import PokeServe
import PokeSyncCore
import Testing
@testable import pokesync

/// `--help` is true: each command's help, usage line and parser come from one declaration
/// of its options, and every default the help shows is the one the code uses.
@Suite("Help is built from each command's declaration")
struct HelpTests {
    static let topics = ["full", "sync", "status", "versions", "diff", "export", "verify", "install", "show", "search",
                         "prune", "serve", "backup"]

    @Test func everyCommandHasHelp() {
        #expect(Set(Help.commands.keys) == Set(Self.topics))
    }

    @Test(arguments: topics)
    func everyOptionIsInItsHelp(topic: String) throws {
        let command = try #require(Help.commands[topic])
        #expect(command.help.hasPrefix("usage: pokesync \(topic)"))
        for option in command.options {
            #expect(command.help.contains(option.label), "`pokesync help \(topic)` does not name \(option.label)")
        }
    }

    /// The usage line (which a usage error repeats) names every option and flag too; full
    /// and sync say `[options]` and list them below it.
    @Test(arguments: topics)
    func everyOptionIsInItsUsageLine(topic: String) throws {
        let command = try #require(Help.commands[topic])
        #expect(command.synopsis.hasPrefix("pokesync \(topic)"), "\(command.synopsis)")
        // The wrapped usage line at the head of the help says the same words.
        let head = command.help.components(separatedBy: "\n\n")[0]
        #expect(head.split(whereSeparator: \.isWhitespace).dropFirst().joined(separator: " ") == command.synopsis)
        #expect(head.split(separator: "\n").allSatisfy { $0.count <= HelpLayout.usageWidth }, "\(head)")
        if topic == "full" || topic == "sync" {
            #expect(command.synopsis.contains("[options]"))
            return
        }
        for option in command.options {
            #expect(command.synopsis.contains(option.label), "`pokesync \(topic)`'s usage line does not name \(option.label)")
        }
    }

    /// Each default an option's help shows, against what the code does without the option.
    static let defaultsInForce: [(topic: String, option: String, inForce: [String])] = {
        let serve = ServeOptions(layout: MirrorLayout(root: URL(fileURLWithPath: "/m")), host: "h", port: 1, baseURL: nil, spriteBase: nil)
        let concurrency = [String(MirrorConfig().concurrency), String(CrawlOptions(mode: .sync).concurrency)]
        let timeout = [String(MirrorConfig().timeoutSeconds), String(HTTPClientConfiguration().timeout)]
        let rate = [String(Int(RunSettings.politeRate))]
        return [("full", "concurrency", concurrency), ("sync", "concurrency", concurrency),
                ("full", "timeout", timeout), ("sync", "timeout", timeout), ("full", "rate", rate), ("sync", "rate", rate),
                ("install", "timeout", [String(Int(UpdaterSettings().timeout))]),
                ("serve", "max-connections", [String(serve.connectionCap)]),
                ("serve", "max-connections-per-address", [String(serve.connectionsPerAddress)]),
                ("serve", "listen", [ServeCommand.defaultListen])]
    }()

    @Test(arguments: topics)
    func everyShownDefaultIsTheOneInForce(topic: String) throws {
        let command = try #require(Help.commands[topic])
        for option in command.options {
            guard let shown = option.shownDefault else { continue }
            // Its help line says it.
            let said = option.help.replacingOccurrences(of: "\n", with: " ")
            #expect(said.contains("default \(shown)") || said.contains("else \(shown) "), "--\(option.name)'s help does not show \(shown)")
            #expect(command.help.contains(option.help.split(separator: "\n")[0]))
            // And the code uses it.
            let entry = try #require(Self.defaultsInForce.first { $0.topic == topic && $0.option == option.name },
                                     "no check of --\(option.name)'s default in `\(topic)`")
            for inForce in entry.inForce { #expect(inForce == shown, "--\(option.name): help says \(shown), the code uses \(inForce)") }
        }
    }

    @Test func theDefaultsCheckedAreAllShown() {
        for entry in Self.defaultsInForce {
            #expect(Help.commands[entry.topic]?.option(named: entry.option)?.shownDefault != nil, "\(entry.topic) --\(entry.option)")
        }
    }

    /// The articles that state a default say the one in force: the mirror.json a new
    /// mirror's first run writes (MirrorFolder.md) and the timeout (Sources.md).
    @Test func theArticlesSayTheDefaults() throws {
        let articles = TestPaths.packageRoot.appendingPathComponent("Sources/PokeSyncCore/PokeSyncCore.docc")
        let folder = try String(contentsOf: articles.appendingPathComponent("MirrorFolder.md"), encoding: .utf8)
        let example = try #require(folder.components(separatedBy: "```json\n").dropFirst()
            .map { $0.components(separatedBy: "```")[0] }.first { $0.contains("\"timeout_seconds\"") })
        let written = try #require(try JSONSerialization.jsonObject(with: Data(example.utf8)) as? [String: Any])
        let config = MirrorConfig()
        #expect(written["concurrency"] as? Int == config.concurrency)
        #expect(written["timeout_seconds"] as? Int == config.timeoutSeconds)
        #expect(written["rate"] as? Double == RunSettings.politeRate)
        let retry = try #require(written["retry"] as? [String: Any])
        #expect(retry["attempts"] as? Int == config.retry.attempts && retry["base_delay_ms"] as? Int == config.retry.baseDelayMs)
        #expect((written["retention"] as? [String: Any])?["keep"] as? Int == config.retention.keep)
        #expect((written["bundles"] as? [String: Any])?["grace_hours"] as? Double == config.bundles.graceHours)
        let sources = try String(contentsOf: articles.appendingPathComponent("Sources.md"), encoding: .utf8)
        #expect(sources.contains("`--timeout S` (default \(config.timeoutSeconds))"))
    }

    /// The parser reads the declaration; its usage errors say what they always said.
    @Test func misusedOptionsSayWhatIsWrong() throws {
        func message(_ words: [String], _ command: CommandSpec = RunCommand.spec(.sync)) -> String? {
            do { _ = try Arguments(words[...], command: command); return nil } catch { return (error as? UsageError)?.message }
        }
        #expect(message(["--bogus"]) == "unknown option --bogus (see `pokesync help`)")
        #expect(message(["--revalidate"], RunCommand.spec(.full)) == "unknown option --revalidate (see `pokesync help`)")
        #expect(message(["--revalidate=yes"]) == "--revalidate takes no value")
        #expect(message(["--timeout"]) == "--timeout needs a value")
        #expect(message(["--mirror="]) == "--mirror needs a value (got an empty one)")
        let arguments = try Arguments(["--concurrency=999", "--rate", "nan", "--timeout", "0", "--", "--x"], command: RunCommand.spec(.sync))
        #expect(arguments.positionals == ["--x"])
        func refusal(_ read: () throws -> Any?) -> String? {
            #expect(throws: UsageError.self) { _ = try read() }?.message
        }
        #expect(refusal { try arguments.integer(RunCommand.concurrency) } == "--concurrency takes a whole number from 1 to 256 (got \"999\")")
        #expect(refusal { try arguments.number(RunCommand.rate) } == "--rate takes a number from 0.001 to 100000.0 (got \"nan\")")
        #expect(refusal { try arguments.integer(RunCommand.timeout) } == "--timeout takes a whole number from 1 to 3600 (got \"0\")")
        let prune = try Arguments(["--keep", "0"], command: PruneCommand.spec)
        #expect(refusal { try prune.integer(PruneCommand.keep) } == "--keep takes a whole number of at least 1 (got \"0\")")
        let diff = try Arguments(["1", "2", "3"], command: DiffCommand.spec)
        #expect(refusal { try diff.expectPositionals(DiffCommand.spec) } == "usage: pokesync diff [FROM [TO]] [--json] [--mirror DIR]")
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
