import Foundation
import PokeSyncCore

/// `pokesync status [--json]`: the last version, and the run in progress with its progress.
struct StatusCommand {
    /// The options and flags it takes; its help names each (a test holds them together).
    static let options: Set<String> = ["mirror"]
    static let flags: Set<String> = ["json"]
    /// `pokesync help status`.
    static let help = """
    usage: pokesync status [--json] [--mirror DIR]

    The latest version, and the run in progress (done/total, failures): running, stopped
    with how it ended (failed after retries, source unavailable, I/O error), or interrupted
    (killed). --json also lists every refused or missing sprite (latest.sprite_reports).
    A --mirror that is a file or does not exist is a usage error (64).
    """

    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, options: Self.options, flags: Self.flags)
        try arguments.expectPositionals(0...0, usage: "pokesync status [--json] [--mirror DIR]")
    }

    func execute() throws -> ExitStatus {
        let layout = MirrorLayout.resolve(option: arguments.options["mirror"])
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: layout.root.path, isDirectory: &isDirectory) else {
            throw UsageError("no mirror folder at \(layout.root.path) (give --mirror DIR, or run `pokesync full` to make one)")
        }
        guard isDirectory.boolValue else { throw UsageError("\(layout.root.path) is a file, not a mirror folder") }
        guard FileManager.default.fileExists(atPath: layout.storeFile.path) else {
            if arguments.flags.contains("json") {
                print(try JSONOutput.string(["mirror": layout.root.path, "latest": NSNull(), "run": NSNull()]))
            } else {
                print("mirror  \(layout.root.path)\nno versions yet: run `pokesync full`")
            }
            return .success
        }
        let store = try Store(layout: layout, create: false, readOnly: true)
        let report = try MirrorStatus.read(store: store, layout: layout)
        print(arguments.flags.contains("json") ? try JSONOutput.string(report.json) : report.text)
        return .success
    }
}

/// `status`'s two forms of what the core reads.
extension MirrorStatus {
    var text: String {
        var lines = ["mirror   \(mirror)"]
        if let latest {
            lines.append("latest   version \(latest.number), \(latest.createdAt) (\(latest.mode.rawValue) from \(latest.source))")
            let counts = ResourceKind.allCases.map { "\(kinds[$0] ?? 0) \($0.apiName)" }.joined(separator: ", ")
            lines.append("         \(latest.documents) documents: \(counts)")
            lines.append("         \(latest.sprites) sprites (\(latest.spriteSet)); \(refused) refused, \(missing) missing upstream")
        } else {
            lines.append("latest   no versions yet")
        }
        if let sourceNotice { lines.append("source   \(sourceNotice)") }
        if let run, let progress = runProgress {
            let again = "run `pokesync \(run.plan.mode.rawValue)` to resume"
            let state = holderPID.map { "running (pid \($0))" }
                ?? ending.map { "stopped \($0.endedAt): \($0.reason) (exit \($0.status)); \(again)" }
                ?? "interrupted (killed, or the machine stopped): \(again)"
            lines.append("run      \(run.plan.mode.rawValue) started \(run.startedAt), \(state)")
            lines.append("         documents \(progress.documentsSettled)/\(progress.documentsTotal), sprites \(progress.spritesSettled)/\(progress.spritesTotal), \(runFailures) failed")
        } else {
            lines.append("run      none in progress")
        }
        return lines.joined(separator: "\n")
    }

    var json: [String: Any] {
        var object: [String: Any] = ["mirror": mirror, "source_notice": sourceNotice ?? NSNull()]
        if let latest {
            var version = JSONOutput.object(latest)
            version["documents_by_kind"] = Dictionary(uniqueKeysWithValues: ResourceKind.allCases.map { ($0.apiName, kinds[$0] ?? 0) })
            version["sprites_refused"] = refused
            version["sprites_missing"] = missing
            // Every report, which the run's summary shows only the first 20 of.
            version["sprite_reports"] = reports.map { ["url": $0.url, "document": $0.document, "outcome": $0.outcome.rawValue, "reason": $0.reason] }
            object["latest"] = version
        } else {
            object["latest"] = NSNull()
        }
        if let run, let progress = runProgress {
            object["run"] = [
                "mode": run.plan.mode.rawValue, "started_at": run.startedAt, "source": run.plan.source,
                "active": holderPID != nil, "pid": holderPID.map { Int($0) as Any } ?? NSNull(),
                "documents": ["done": progress.documentsSettled, "total": progress.documentsTotal],
                "sprites": ["done": progress.spritesSettled, "total": progress.spritesTotal],
                "failed": runFailures,
                "state": holderPID != nil ? "running" : ending == nil ? "interrupted" : "stopped",
                "ended": ending.map { ["status": Int($0.status), "reason": $0.reason, "at": $0.endedAt] as [String: Any] } ?? NSNull(),
            ] as [String: Any]
        } else {
            object["run"] = NSNull()
        }
        return object
    }
}

/// JSON for `--json` outputs: sorted keys, snake_case, no escaped slashes.
enum JSONOutput {
    static func string(_ object: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    static func object<T: Encodable>(_ value: T) -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        guard let data = try? encoder.encode(value),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object
    }
}
