import Foundation

/// What `status` shows of a mirror, read from its store (another process may be
/// writing it) and its lock.
package struct MirrorStatus: Sendable {
    /// The mirror folder.
    package var mirror: String
    /// The newest published version, if any.
    package var latest: VersionRecord?
    /// Documents of each kind in `latest`.
    package var kinds: [ResourceKind: Int] = [:]
    /// Cries in `latest`, and the `--cries` set it was made with.
    package var cries = 0
    package var crySet: CrySet = .none
    /// Every sprite the latest version refused or found missing upstream.
    package var reports: [SpriteReport] = []
    package var refused: Int { reports.filter { $0.outcome == .refused }.count }
    package var missing: Int { reports.filter { $0.outcome == .missing }.count }
    /// The unfinished run, if one was started and not published.
    package var run: RunRecord?
    /// How the last attempt at `run` ended, when it stopped by itself (not a kill).
    package var ending: RunEnding?
    package var runProgress: RunProgress?
    package var runFailures = 0
    /// The pid of the live process holding the mirror's lock, if one does.
    package var holderPID: Int32?
    /// What the last run said about its source (it sends no validators ...), if anything.
    package var sourceNotice: String?
    /// The request rate a bare `sync` would keep to (`mirror.json`, else the polite
    /// default when it reaches pokeapi.co), or why it cannot be told (a bad `mirror.json`).
    package var rate: Result<RateInForce, ConfigError> = .failure(ConfigError("not read"))
    /// What the last run that reached publishing did with linked files whose host failed.
    package var lastRunCarried: LastRunCarried?

    /// Reads the status of the mirror whose store is open (read-only) in `store`.
    /// - Throws: store errors.
    package static func read(store: Store, layout: MirrorLayout) throws -> MirrorStatus {
        var status = MirrorStatus(mirror: layout.root.path)
        status.latest = try store.latestVersion()
        if let latest = status.latest {
            status.kinds = try store.documentCounts(version: latest.number)
            status.reports = try store.spriteReports(version: latest.number)
            status.cries = try store.fileCount(.cries, version: latest.number)
            status.crySet = try store.versionCrySet(latest.number)?.selection ?? .none
        }
        if let run = try store.currentRun() {
            status.run = run
            status.ending = try store.runEnding(run: run.id)
            status.runProgress = try store.progress(run: run.id)
            status.runFailures = try store.failures(run: run.id).count
        }
        status.holderPID = MirrorLock.holderPID(layout: layout)
        status.sourceNotice = try store.sourceNotice()
        status.rate = rate(layout: layout, latest: try MirrorChoices.recorded(in: store))
        status.lastRunCarried = try store.lastRunCarried()
        return status
    }

    /// The rate a bare `sync` of the mirror would keep to, from its `mirror.json` and the
    /// latest version's choices (nil for a mirror with no version).
    package static func rate(layout: MirrorLayout, latest: MirrorChoices?) -> Result<RateInForce, ConfigError> {
        do {
            let settings = try RunSettings(mode: .sync, config: try MirrorConfig.load(layout))
            return .success(settings.rate(for: settings.choices(latest: latest)))
        } catch let error as ConfigError {
            return .failure(error)
        } catch {
            return .failure(ConfigError("\(layout.display(layout.configFile)): \(error)"))
        }
    }
}
