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
            let version = try VersionChoice.resolve(try arguments.integer("version", minimum: 1), store: store)
            return (version, try ApiDataExporter(store: store).export(version: version, to: URL(fileURLWithPath: out)))
        }
        print("exported version \(version) (\(count) documents) to \(out) in the api-data layout")
        return .success
    }
}

enum VersionChoice {
    /// The asked version, or the latest; a usage error naming what exists otherwise.
    static func resolve(_ asked: Int?, store: Store) throws -> Int {
        let versions = try store.versions().map(\.number)
        guard let latest = versions.last else { throw UsageError("the mirror has no versions yet: run `pokesync full`") }
        guard let asked else { return latest }
        guard versions.contains(asked) else {
            throw UsageError("there is no version \(asked) (retained: \(versions.map(String.init).joined(separator: ", ")))")
        }
        return asked
    }
}
