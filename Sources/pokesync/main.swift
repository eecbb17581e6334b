import Foundation
import PokeHTTP
import PokeSyncCore

// pokesync: the command-line entry point. Each command lives in Commands/; this
// file only dispatches and turns errors into one line and a sysexits code (the code from
// the one table, ExitStatus(for:); the line from message(for:)).

let words = Array(CommandLine.arguments.dropFirst())
let command = words.first ?? "help"
let rest = words.dropFirst()

let status: ExitStatus
do {
    if rest.contains("--help") || rest.contains("-h") { exit(Help.print(topic: command).rawValue) }
    switch command {
    case "full": status = try await RunCommand(mode: .full, words: rest).execute()
    case "sync": status = try await RunCommand(mode: .sync, words: rest).execute()
    case "status": status = try StatusCommand(words: rest).execute()
    case "versions": status = try VersionsCommand(words: rest).execute()
    case "diff": status = try DiffCommand(words: rest).execute()
    case "prune": status = try PruneCommand(words: rest).execute()
    case "export": status = try ExportCommand(words: rest).execute()
    case "verify": status = try VerifyCommand(words: rest).execute()
    case "install": status = try await InstallCommand(words: rest).execute()
    case "show": status = try ShowCommand(words: rest).execute()
    case "search": status = try SearchCommand(words: rest).execute()
    case "serve": status = try ServeCommand(words: rest).execute()
    case "backup": status = try BackupCommand(words: rest).execute()
    case "help", "--help", "-h": status = Help.print(topic: rest.first)
    case "--version": print("pokesync \(PokeSync.versionLine)"); status = .success
    default: throw UsageError("unknown command \"\(command)\" (see `pokesync help`)")
    }
} catch {
    standardError("pokesync: \(message(for: error))\n")
    status = ExitStatus(for: error)
}
// serve's last lines wait at most a second for a reader that stalled (other commands write
// theirs as they go: nothing waits here).
StandardStreams.finish(within: 1)
exit(status.rawValue)

/// The one line an error prints after `pokesync: `, whatever it quotes (a hostile name, a
/// search term): controls escaped.
func message(for error: any Error) -> String {
    switch error {
    // The core's words for what it was asked, said with the flags that asked it.
    case let failure as RequestError: TerminalText.escaped(CommandLineWords.describe(failure))
    // The line to run instead: this very command, as the mirror's owner.
    case MirrorError.foreignOwner(let owner): TerminalText.escaped(owner.description(rerun: CommandLine.arguments))
    case let failure as any PokeSyncError: TerminalText.escaped(failure.description)
    case is CancellationError: "interrupted; run the same command again to resume"
    default: TerminalText.escaped(String(describing: error))
    }
}
