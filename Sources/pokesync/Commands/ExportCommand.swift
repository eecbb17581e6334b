import Foundation
import PokeSyncCore

/// `pokesync export [--version N] [--format bundle|api-data] [--sprites SET] [--languages LIST] [--out PATH]`.
struct ExportCommand {
    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, options: ["mirror", "version", "format", "out", "sprites", "languages"], flags: ["replace-damaged"])
        try arguments.expectPositionals(0...0, usage: "pokesync export [--version N] [--format bundle|api-data] [--sprites SET] [--languages LIST] [--out PATH] [--replace-damaged]")
    }

    func execute() throws -> ExitStatus {
        let format = arguments.options["format"] ?? "bundle"
        guard format == "api-data" else {
            guard format == "bundle" else { throw UsageError("--format takes bundle or api-data (got \"\(format)\")") }
            return try exportBundles()
        }
        guard let out = arguments.options["out"] else { throw UsageError("--format api-data needs --out DIR") }
        for option in ["sprites", "languages"] where arguments.options[option] != nil {
            throw UsageError("--\(option) goes with bundles; an api-data export holds every document as served")
        }
        if arguments.flags.contains("replace-damaged") { throw UsageError("--replace-damaged goes with bundles") }
        let layout = MirrorLayout.resolve(option: arguments.options["mirror"])
        let store = try Store(layout: layout, create: false, readOnly: true)
        let (version, count) = try store.snapshot {
            let version = try store.resolveVersion(try arguments.integer("version", minimum: 1))
            return (version, try ApiDataExporter(store: store).export(version: version, to: URL(fileURLWithPath: out)))
        }
        print("exported version \(version) (\(count) documents) to \(out) in the api-data layout")
        return .success
    }
}
