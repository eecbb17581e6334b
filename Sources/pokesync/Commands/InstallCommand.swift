import Foundation
import PokeSyncCore
import PokedexReader
import PokedexUpdater

/// `pokesync install DIR --from URL|DIR [--allow-downgrade] [--timeout S]`: installs or updates a
/// device folder as an app does through the reader library.
struct InstallCommand {
    static let from = OptionSpec.option("from", "URL|DIR")
    static let allowDowngrade = OptionSpec.flag("allow-downgrade")
    static let timeout = OptionSpec.option(
        "timeout", "S", .wholeNumber(Int(UpdaterSettings.timeoutRange.lowerBound)...Int(UpdaterSettings.timeoutRange.upperBound)),
        default: "\(Int(UpdaterSettings.defaultTimeout))", help: """
        a download moving less than \(UpdaterSettings.minimumBytesPerSecond / 1000) kB/s averaged over S seconds
        ends as a timeout (\(Int(UpdaterSettings.timeoutRange.lowerBound))-\(Int(UpdaterSettings.timeoutRange.upperBound)), default \(Int(UpdaterSettings.defaultTimeout)))
        """)
    /// `pokesync help install`.
    static let spec = CommandSpec(name: "install", positionals: "DIR", positionalCount: 1...1,
                                  usage: [.required(from), .optional(allowDowngrade), .optional(timeout)], sections: [
        .text("""
        Installs or updates the device folder DIR from an index.json URL or a bundles folder:
        the delta from the installed version when the index has one, else the full bundle
        (also when the delta cannot be fetched). Every download is checked (size, SHA-256,
        manifest, content_digest) before DIR/current switches; killed at any moment, DIR opens
        at the old version and the next install finishes the job. Over HTTP the index is asked
        for with its last ETag (304: already current), only same-server redirects are
        followed, and any Content-Encoding but identity is refused.
        """),
        .options([timeout]),
        .text("""
        Exit 65 for a tampered, truncated or wrong-base download, a lying index, a newer schema
        or a refused downgrade; 69 source unreachable, timed out or its TLS certificate not
        accepted; 74 I/O; 75 another install.
        """),
    ])

    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, command: Self.spec)
        try arguments.expectPositionals(Self.spec)
        guard arguments[Self.from] != nil else {
            throw UsageError("install needs --from URL|DIR (an index.json URL or a bundles folder)")
        }
    }

    func execute() async throws -> ExitStatus {
        let folder = URL(fileURLWithPath: arguments.positionals[0])
        let from = arguments[Self.from]!
        let isURL = from.hasPrefix("http://") || from.hasPrefix("https://")
        var source = isURL ? URL(string: from) : URL(fileURLWithPath: from)
        guard let url = source else { throw UsageError("--from \(from) is not a URL") }
        var isFolder: ObjCBool = false
        if !isURL, FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
            // A local index.json stands for its folder; a single bundle is not an index.
            guard url.lastPathComponent == BundlesFolder.indexName else {
                throw UsageError("--from \(from): a bundles folder or an index.json URL, not a single file "
                                 + "(`pokesync show --bundle FILE` reads one bundle)")
            }
            source = url.deletingLastPathComponent()
        }
        guard let source else { throw UsageError("--from \(from) is not a URL") }
        let onTerminal = isatty(STDERR_FILENO) == 1
        var settings = UpdaterSettings()
        if let timeout = try arguments.integer(Self.timeout) { settings.timeout = TimeInterval(timeout) }
        Self.useOwnTransport(&settings)
        let result: UpdateResult
        do {
            result = try await Updater(folder: folder, settings: settings).update(from: source,
                                                              allowDowngrade: arguments.has(Self.allowDowngrade)) { step in
                guard onTerminal else { return }
                standardError("\r\u{1B}[K" + Self.describe(step))
            }
        } catch let error as UpdateError {
            throw CommandError.install(error)
        }
        if onTerminal { standardError("\r\u{1B}[K") }
        print(Self.summary(result))
        return .success
    }

    /// Every request says pokesync's name and version, and the downloads go through
    /// pokesync's libcurl transport, the crawler's: its cancel and caps stop a transfer at
    /// once (FoundationNetworking's do not), and the updater's ``RedirectPolicy`` is the
    /// crawler's.
    static func useOwnTransport(_ settings: inout UpdaterSettings) {
        settings.transport = CurlDownloadTransport(userAgent: PokeSync.userAgent(contact: nil))
    }

    static func describe(_ step: UpdateProgress) -> String {
        switch step {
        case .readingIndex: "reading the index"
        case let .downloading(file, bytes, total): "downloading \(file): \(byteCount(bytes)) of \(byteCount(total))"
        case let .extracting(file): "extracting \(file)"
        case let .building(version): "building version \(version)"
        case let .switching(version): "switching to version \(version)"
        }
    }

    /// `installed version 7 (delta from 6, 18 kB)`, `installed version 7 (full bundle, 3.1 MB)`, `already at version 7`.
    static func summary(_ result: UpdateResult) -> String {
        var line: String
        switch result.kind {
        case .alreadyCurrent: return "already at version \(result.installedVersion)"
        case .delta: line = "installed version \(result.installedVersion) (delta from \(result.fromVersion ?? 0), \(byteCount(result.bytesDownloaded)))"
        case .full: line = "installed version \(result.installedVersion) (full bundle, \(byteCount(result.bytesDownloaded)))"
        }
        if !result.addedPokemon.isEmpty, result.fromVersion != nil { line += "; pokemon added: \(ids(result.addedPokemon))" }
        if !result.removedPokemon.isEmpty { line += "; pokemon removed: \(ids(result.removedPokemon))" }
        return line
    }

    private static func ids(_ list: [Int]) -> String {
        list.count <= 20 ? list.map(String.init).joined(separator: " ") : "\(list.count)"
    }

    static func byteCount(_ bytes: Int) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        if bytes < 1_000_000 { return "\(bytes / 1000) kB" }
        return String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
