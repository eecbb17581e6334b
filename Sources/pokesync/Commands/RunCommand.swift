import Foundation
import PokeLocking
import PokeSyncCore

/// `pokesync full` and `pokesync sync`.
struct RunCommand {
    let mode: RunMode
    let arguments: Arguments

    init(mode: RunMode, words: ArraySlice<String>) throws {
        self.mode = mode
        arguments = try Arguments(words, command: Self.spec(mode))
        try arguments.expectPositionals(Self.spec(mode), usage: "pokesync \(mode.rawValue) [options] (see `pokesync help \(mode.rawValue)`)")
    }

    /// Validates everything before the lock is taken or the network is touched. The
    /// mirror's choices neither the command line nor mirror.json gives stay nil: the run
    /// takes them from the latest version.
    func settings(layout: MirrorLayout) throws -> RunSettings {
        let config = try MirrorConfig.load(layout)
        var settings = try RunSettings(mode: mode, config: config)
        for (option, key) in Self.choiceOptions { settings.givenOnCommandLine[key] = arguments[option] }
        if let source = arguments[Self.source] { settings.source = source }
        if let spriteSource = arguments[Self.spriteSource] { settings.spriteSource = spriteSource }
        if let sprites = arguments[Self.sprites] { settings.sprites = try SpriteSet(parsing: sprites) }
        if let kinds = arguments[Self.kinds] { settings.kinds = try KindSelection(parsing: kinds) }
        if let cries = arguments[Self.cries] { settings.cries = try CrySet(parsing: cries) }
        if let crySource = arguments[Self.crySource] { settings.crySource = crySource }
        if let concurrency = try arguments.integer(Self.concurrency) { settings.concurrency = concurrency }
        if let timeout = try arguments.integer(Self.timeout) { settings.timeoutSeconds = timeout }
        if let rate = try arguments.number(Self.rate) {
            settings.rate = rate
            settings.givenOnCommandLine["rate"] = arguments[Self.rate]
        }
        if let hosts = arguments[Self.allowHost] {
            settings.allowHosts += hosts.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        }
        // Checked here, so that a wrong source is said with its flag and is not recorded
        // as how an unfinished run ended.
        if let source = settings.source { try SourceFactory.check(documentSource: source) }
        if let spriteSource = settings.spriteSource { _ = try SourceFactory.spriteSource(spriteSource) }
        if let crySource = settings.crySource {
            do { _ = try SourceFactory.spriteSource(crySource, option: "cry-source") } catch RequestError.invalidSpriteSource {
                throw ConfigError("--cry-source \(crySource): not a valid URL")
            }
        }
        settings.revalidate = arguments.has(Self.revalidate)
        settings.allowShrink = arguments.has(Self.allowShrink)
        settings.allowMassChange = arguments.has(Self.allowMassChange)
        return settings
    }

    func execute() async throws -> ExitStatus {
        let layout = MirrorLayout.resolve(option: arguments[Self.mirror])
        let settings = try settings(layout: layout)
        let work = Task { try await MirrorRun.run(layout: layout, settings: settings, progressDisplay: { ProgressPrinter(progress: $0) }) { standardError($0 + "\n") } }
        let signals = InterruptHandler { work.cancel() }
        defer { withExtendedLifetime(signals) {} }
        let summary = try await work.value
        print(Self.describe(summary))
        return summary.carried.isEmpty && summary.withheld.isEmpty ? .success : .filesCarried
    }

    static func describe(_ summary: CrawlSummary) -> String {
        var lines: [String] = []
        switch summary.outcome {
        case .published(let version):
            lines.append("published version \(version.number): \(version.documents) documents, \(version.sprites) sprites"
                         + (summary.cries > 0 ? ", \(summary.cries) cries" : ""))
        case .unchanged(let base):
            lines.append("no changes since version \(base)")
        }
        // Decoded bytes, then the same bodies as sent: a gzip-encoding server's saving shows;
        // bytes read from a folder are said as such (a folder has no wire).
        lines.append(String(format: "documents: %d fetched, %d unchanged; sprites and cries: %d fetched, %d unchanged; %d requests, ",
                            summary.documentsFetched, summary.documentsUnchanged, summary.spritesFetched,
                            summary.spritesUnchanged, summary.requests)
                     + summary.transfer.description + String(format: " in %.1f s", summary.seconds))
        if let diff = summary.diff, let file = summary.diffFile {
            let counts = diff.summary.keys.sorted().map { kind -> String in
                let value = diff.summary[kind] ?? VersionDiff.Counts()
                return "\(kind.apiName) +\(value.added) -\(value.removed) ~\(value.changed)"
            }
            lines.append("changes since version \(diff.from): " + counts.joined(separator: ", ")
                         + ", sprites +\(diff.sprites.added) -\(diff.sprites.removed) ~\(diff.sprites.changed)"
                         + (diff.cries.total > 0 ? ", cries +\(diff.cries.added) -\(diff.cries.removed) ~\(diff.cries.changed)" : "")
                         + " (\(file.path))")
        }
        let refused = summary.spriteReports.filter { $0.outcome == .refused }
        let missing = summary.spriteReports.filter { $0.outcome == .missing }
        if !missing.isEmpty { lines.append("\(missing.count) sprite or cry file(s) missing upstream (404), recorded") }
        if !refused.isEmpty {
            lines.append("\(refused.count) sprite or cry URL(s) refused:")
            for report in refused.prefix(20) { lines.append("  \(report.document): \(report.url): \(report.reason)") }
            if refused.count > 20 { lines.append("  ... and \(refused.count - 20) more: all are in `pokesync status --json`, latest.sprite_reports") }
        }
        for entry in summary.dropped { lines.append(entry.line) }
        // Last, where cron's mail and the nightly log's tail show them.
        for entry in summary.carried { lines.append("warning: " + entry.line) }
        for entry in summary.withheld { lines.append("warning: " + entry.line) }
        return lines.joined(separator: "\n")
    }
}

/// `full`'s and `sync`'s options, declared once: the parser, the usage line and the help
/// read them, and each default shown is the constant the run uses.
extension RunCommand {
    private typealias limits = FileHostLimits

    static let source = OptionSpec.option("source", "URL|DIR", help: """
        a PokeAPI base URL ending in /api/v2 (a self-hosted one too, e.g.
        http://127.0.0.1:8000/api/v2) or an api-data folder (default: mirror.json's
        "source", else the latest version's, else \(MirrorChoices.defaultSource))
        """)
    static let spriteSource = OptionSpec.option("sprite-source", "URL|DIR", help: """
        where sprite bytes come from: replaces
        \(LinkedTree.sprites.upstreamPrefix) (a sprites clone or server;
        that address itself goes back to upstream; default as for --source);
        a sprite URL outside that layout (...\(LinkedTree.sprites.repositoryLayout)) is refused
        """)
    static let sprites = OptionSpec.option("sprites", "SET", help: """
        none, default (front_default), artwork (other/official-artwork), all,
        or a comma list of sprite paths under `sprites`: a field such as front_default,
        or other/... or versions/... ending in one (default: mirror.json's "sprites",
        else the latest version's, else default);
        default, artwork and paths pick among pokemon's sprites, all is every
        sprite any mirrored document links (pokemon-form, item and type too)
        """)
    static let cries = OptionSpec.option("cries", "SET", help: """
        none, latest, legacy or all: the cries of every pokemon (cries.latest,
        cries.legacy), kept in the mirror's cries/ tree (default: mirror.json's
        "cries", else the set the latest version was made with, else none)
        """)
    static let crySource = OptionSpec.option("cry-source", "URL|DIR", help: """
        where cry bytes come from: replaces
        \(LinkedTree.cries.upstreamPrefix) (a cries clone or server)
        """)
    static let kinds = OptionSpec.option("kinds", "SET", help: """
        default (the ten kinds the device database reads: pokemon, pokemon-species,
        pokedex, evolution-chain, type, ability, move, stat, version, language),
        all (every endpoint the source's root lists, meta, and every pokemon's
        encounters), or a comma list of endpoint names (default: mirror.json's
        "kinds", else the set the latest version was made with, else default);
        a changed set publishes the added or removed documents as a version
        """)
    static let concurrency = OptionSpec.option(
        "concurrency", "N", .wholeNumber(MirrorConfig.concurrencyRange), default: "\(MirrorConfig.defaultConcurrency)", help: """
        requests in flight at most (default \(MirrorConfig.defaultConcurrency))
        """)
    static let rate = OptionSpec.option("rate", "R", .number(MirrorConfig.rateRange),
                                        default: RunSettings.politeRateText, help: """
        requests per second at most (default: mirror.json's "rate", else \(RunSettings.politeRateText) when
        the run reaches pokeapi.co or raw.githubusercontent.com, else no cap)
        """)
    static let allowHost = OptionSpec.option("allow-host", "HOST[:PORT][,..]", help: """
        more origins sprites may be fetched from (https:443 and http:80 without a port)
        """)
    static let timeout = OptionSpec.option(
        "timeout", "S", .wholeNumber(MirrorConfig.timeoutRange), default: "\(HTTPClientConfiguration.defaultTimeout)", help: """
        seconds of silence before a request is retried (default \(HTTPClientConfiguration.defaultTimeout));
        one attempt ends after \(HTTPClientConfiguration.deadlineFactor) x S whatever the server sends; a sprite
        or cry host is given up for the run (its files carried or left for
        the next; the run exits 2) when it sends neither a file nor a 404
        for \(HTTPClientConfiguration.deadlineFactor) x S, delivers none of \(limits.undeliveredInARow) files in a row with \(limits.failuresInTheRun) or more
        of them failed (404/410 count among the \(limits.undeliveredInARow), never alone), fails more
        than \(FileHostLimits.percent(limits.failureShare)) of its last \(limits.recentFiles) files (once it settled \(limits.filesBeforeTheShare)), or its
        failed files cost the run more than \(limits.failureTime.components.seconds / 60) minutes (a slow host that
        delivers is never given up); a host answering the same bytes for
        \(limits.placeholderFiles) files that held other bytes (a placeholder) is given up and
        those files refused (carried); a document source that delivers no
        document for \(HTTPClientConfiguration.deadlineFactor) x S with requests outstanding, or fails \(DocumentSourceLimits.failuresInARow) in a row,
        stops the run (exit 69; the next run resumes it)
        """)
    static let allowShrink = OptionSpec.flag("allow-shrink", help: """
        accept a loss: publish even when a kind's list lost more than \(100 / Store.shrinkDivisor)% of the
        latest version's entries (without it such a run exits 65 and publishes
        nothing; the next run lists those kinds again); drop the sprites and
        cries the latest version holds that answered 404/410 at their host
        (without it they are carried with their bytes, every night, while a
        document links them); narrow the mirror: a --kinds, --sprites or
        --cries selecting less than the latest version is refused without it
        (exit 64, nothing fetched); with it, the run says what the mirror
        holds from now on and mirror.json records it
        """)
    static let allowMassChange = OptionSpec.flag("allow-mass-change", help: """
        accept a mass change of the linked files, for this run only: when more
        than \(FileHostLimits.percent(limits.massChangeShare)) of the sprites (or cries) the latest version holds, and at
        least \(limits.massChangeMinimum), come back with other bytes (a re-encode upstream, or
        a host answering other valid bytes for everything), the run keeps
        the latest version's bytes, exits 2 and says how many; with it they
        are published (and a placeholder is not refused). Never a
        mirror.json setting: the nightly job does not accept the next one
        """)
    static let mirror = OptionSpec.mirror
    static let revalidate = OptionSpec.flag("revalidate", help: "check every document and sprite even when the deploy is unchanged")

    /// The options both take, in the help's order.
    static let runOptions = [source, spriteSource, sprites, cries, crySource, kinds, concurrency, rate, allowHost, timeout,
                             allowShrink, allowMassChange, mirror]

    /// The choices given on the command line, under their mirror.json names: a run records them there.
    static let choiceOptions = [(source, "source"), (spriteSource, "sprite_source"), (sprites, "sprites"),
                                (kinds, "kinds"), (cries, "cries"), (crySource, "cry_source")]

    /// `pokesync help full` / `pokesync help sync`.
    static func spec(_ mode: RunMode) -> CommandSpec { mode == .sync ? syncSpec : fullSpec }

    static let fullSpec = CommandSpec(name: "full", positionals: "", positionalCount: 0...0, usage: [.listedBelow], sections: [
        .text("""
        Fetches every document (and the selected sprites) unconditionally and publishes the
        next version. Interrupted (Ctrl-C, kill, crash)? Run the same command again: it resumes;
        stopped after it published, the same command finishes that version and fetches nothing.
        A choice (--source, --sprite-source, --sprites, --cries, --cry-source, --kinds) not given
        is mirror.json's, else the latest version's, else the default; a new mirror's first run
        writes mirror.json, and a choice given later is recorded there, so a bare sync repeats it.

        """),
        .options(runOptions),
    ])

    static let syncSpec = CommandSpec(name: "sync", positionals: "", positionalCount: 0...0,
                                      usage: [.listedBelow, .optional(revalidate)], sections: [
        .text("""
        Re-lists every kind and revalidates what the store has with conditional requests;
        publishes a version only when something changed ("no changes since version N" otherwise).
        When the source's deploy (X-PokeAPI-Hash) is unchanged, the per-document checks are skipped;
        sprites (another repository, updated on its own) are always revalidated.
        A source that sends no ETag, Last-Modified nor deploy hash (a stock self-hosted PokeAPI) is
        downloaded whole every time; the run says so once (and `status` repeats it), and counts a
        document that came back the same as unchanged.
        Options not given are mirror.json's, else the latest version's choices (see `help full`).

        """),
        .options(runOptions + [revalidate]),
    ])
}

/// Turns SIGINT and SIGTERM into cancellation of the running crawl, so that it stops
/// between jobs with everything finished so far committed.
final class InterruptHandler {
    private let sources: [any DispatchSourceSignal]

    init(_ onInterrupt: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let count = Locked(0)
            source.setEventHandler {
                // The first signal stops between jobs; a second one quits at once (the
                // store is still safe: every committed job stays committed).
                if count.withLock({ $0 += 1; return $0 }) > 1 { exit(ExitStatus.interrupted.rawValue) }
                standardError("\npokesync: stopping; finished work is kept (again to quit at once)\n")
                onInterrupt()
            }
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }
}
