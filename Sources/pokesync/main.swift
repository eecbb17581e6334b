import Foundation
import PokeHTTP
import PokeSyncCore

// pokesync: the command-line entry point. Each command lives in Commands/; this
// file only dispatches and turns errors into one line and a sysexits code.

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
} catch let failure as RequestError {
    // The core's words for what it was asked, said with the flags that asked it.
    standardError("pokesync: \(TerminalText.escaped(CommandLineWords.describe(failure)))\n")
    status = failure.exitStatus
} catch let failure as ForeignOwnerError {
    // The line to run instead: this very command, as the mirror's owner.
    standardError("pokesync: \(TerminalText.escaped(failure.description(rerun: CommandLine.arguments)))\n")
    status = failure.exitStatus
} catch let failure as any PokeSyncFailure {
    // One line, whatever the message quotes (a hostile name, a search term): controls escaped.
    standardError("pokesync: \(TerminalText.escaped(failure.description))\n")
    status = failure.exitStatus
} catch is CancellationError {
    standardError("pokesync: interrupted; run the same command again to resume\n")
    status = .interrupted
} catch {
    standardError("pokesync: \(TerminalText.escaped(String(describing: error)))\n")
    status = .ioError
}
// serve's last lines wait at most a second for a reader that stalled (other commands write
// theirs as they go: nothing waits here).
StandardStreams.finish(within: 1)
exit(status.rawValue)
