import Foundation
import PokeSyncCore

/// `pokesync status [--json]`: the last version, and the run in progress with its progress.
struct StatusCommand: MirrorCommand {
    /// `pokesync help status`.
    static let spec = CommandSpec(name: "status", positionals: "", positionalCount: 0...0,
                                  usage: [.optional(.json), .optional(.mirror)], sections: [.text("""
        The latest version, the request rate a bare sync keeps to (--rate or mirror.json's
        "rate", else \(RunSettings.politeRateText) a second against pokeapi.co and its file hosts, else no cap), and the run
        in progress (done/total, failures): running, stopped with how it ended (failed after
        retries, source unavailable, I/O error), or interrupted (killed). When the last run
        carried linked files from the version before (their host failed, or answered 404/410
        for files the documents still link), how many and from which host. --json also lists every refused or missing sprite (latest.sprite_reports)
        and the carried files (last_run_carried), and names this binary's release and the commit
        it was built from (pokesync.version, pokesync.commit: null when not known).
        A --mirror that is a file or does not exist is a usage error (64).
        """)])

    let arguments: Arguments

    func execute() throws -> ExitStatus {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: layout.root.path, isDirectory: &isDirectory) else {
            throw UsageError("no mirror folder at \(layout.root.path) (give --mirror DIR, or run `pokesync full` to make one)")
        }
        guard isDirectory.boolValue else { throw UsageError("\(layout.root.path) is a file, not a mirror folder") }
        guard FileManager.default.fileExists(atPath: layout.storeFile.path) else {
            let rate = MirrorStatus.rate(layout: layout, latest: nil)
            if arguments.has(.json) {
                print(try JSONOutput.string(StatusJSON(mirror: layout.root.path, rate: rate)))
            } else {
                print("mirror  \(layout.root.path)\nno versions yet: run `pokesync full`\n" + MirrorStatus.rateLine(rate))
            }
            return .success
        }
        let store = try Store(layout: layout, create: false, readOnly: true)
        let report = try MirrorStatus.read(store: store, layout: layout)
        print(arguments.has(.json) ? try JSONOutput.string(StatusJSON(report)) : report.text)
        return .success
    }
}

/// `status`'s two forms of what the core reads.
extension MirrorStatus {
    /// "rate     20 requests/s (default for pokeapi.co)": what a bare `sync` keeps to.
    static func rateLine(_ rate: Result<RateInForce, ConfigError>) -> String {
        switch rate {
        case .success(let rate): return "rate     \(rate.description)"
        case .failure(let error): return "rate     not known: \(error.message)"
        }
    }

    var text: String {
        var lines = ["mirror   \(mirror)"]
        if let latest {
            lines.append("latest   version \(latest.number), \(latest.createdAt) (\(latest.mode.rawValue) from \(latest.source))")
            let counts = kinds.keys.sorted().map { "\(kinds[$0] ?? 0) \($0.apiName)" }.joined(separator: ", ")
            lines.append("         \(latest.documents) documents: \(counts)")
            lines.append("         \(latest.sprites) sprites (\(latest.spriteSet)), \(cries) cries (\(crySet)); "
                         + "\(refused) refused, \(missing) missing upstream")
        } else {
            lines.append("latest   no versions yet")
        }
        if let sourceNotice { lines.append("source   \(sourceNotice)") }
        lines.append(Self.rateLine(rate))
        if let carried = lastRunCarried, !carried.isEmpty {
            let what = carried.published ? "published version \(carried.version)" : "no changes since version \(carried.version)"
            lines.append("files    the last run (\(carried.at), \(what)) could not fetch or did not publish some linked files:")
            for entry in carried.files { lines.append("         " + entry.line) }
            for entry in carried.withheld { lines.append("         " + entry.line) }
        }
        if let run, let progress = runProgress {
            let again = "run `pokesync \(run.plan.mode.rawValue)` to resume"
            let state = holderPID.map { "running (pid \($0))" }
                ?? ending.map { "stopped \($0.endedAt): \($0.reason) (exit \($0.status)); \(again)" }
                ?? "interrupted (killed, or the machine stopped): \(again)"
            lines.append("run      \(run.plan.mode.rawValue) started \(run.startedAt), \(state)")
            lines.append("         documents \(progress.documentsSettled)/\(progress.documentsTotal), sprites and cries \(progress.spritesSettled)/\(progress.spritesTotal), \(runFailures) failed")
        } else {
            lines.append("run      none in progress")
        }
        return lines.joined(separator: "\n")
    }
}

/// JSON for `--json` outputs: sorted keys, two-space indent, no escaped slashes.
enum JSONOutput {
    /// - Parameter keys: `.convertToSnakeCase` for a core record's synthesized keys.
    static func string(_ value: some Encodable, keys: JSONEncoder.KeyEncodingStrategy = .useDefaultKeys) throws -> String {
        String(decoding: try BundleJSON.data(value, keys: keys), as: UTF8.self)
    }
}
