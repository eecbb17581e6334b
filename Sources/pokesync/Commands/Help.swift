import PokeSyncCore

/// `pokesync help [COMMAND]` and `--help`: the truth about what this build does.
enum Help {
    static let overview = """
    pokesync \(PokeSync.version): an offline mirror of the PokeAPI (REST v2), and the bundles Pokedex apps read offline.

    usage: pokesync COMMAND [options]

    commands:
      full       mirror the ten kinds (pokemon, pokemon-species, pokedex, evolution-chain, type,
                 ability, move, stat, version, language) and sprites as a new version
      sync       bring the mirror up to date, fetching only what changed (the nightly job)
      status     the latest version, and the run in progress with its progress
      versions   every retained version
      diff       what changed between two versions
      export     write a version out: bundles for devices (default), or an api-data tree
      prune      drop old versions, keeping the newest N (their deltas leave the bundles index)
      verify     check a mirror folder, a bundles folder, a bundle or a delta against its hashes
      install    install or update a device folder from an index URL or a bundles folder
      show       a pokemon's detail from a bundle or a device folder
      search     search as an app's search field does, from a bundle or a device folder
      serve      serve the latest version read-only as a PokeAPI (lists paged, sync and prune run meanwhile)
      backup     copy the mirror folder whole and consistent while it is in use (the store by SQLite's backup API)

    common options:
      --mirror DIR   the mirror folder (default: $POKESYNC_MIRROR, else ./Mirror)

    exit codes: 0 ok, 1 resources still failed after retries, a document that never parsed
      among them (nothing published), 2 published but a sprite or cry host failed, lied (a
      placeholder) or lost files the documents link (its files carried from the version
      before or left for the next run), or more than \(FileHostLimits.percent(FileHostLimits.massChangeShare)) of a tree's held files changed
      bytes without --allow-mass-change (their held bytes kept), or exported without sprites a host has not delivered yet or without a delta
      from an old version that cannot be built, 64 usage (an option, a mirror.json key, an
      export --out that is not pokesync's, a choice that narrows the mirror without
      --allow-shrink, sprites the version was never mirrored with), 65 bad data (corrupt
      store, shrunken lists, a dangling reference, a damaged or tampered bundle), 69 source
      unavailable, silent after its lists (the run stops, the next resumes it), its TLS
      certificate not accepted, or no PokeAPI v2 list at --source (it must be the API base
      ending in /api/v2), or serve cannot listen, 74 I/O error,
      75 mirror or device folder locked, 77 root asked to write a mirror another user owns (it
      names the command to run as that user), 130 interrupted (run the same command again to resume)

    `pokesync help COMMAND` explains one command.
    """

    /// Each command's declaration, whose help `pokesync help COMMAND` prints.
    static let commands: [String: CommandSpec] = [
        "full": RunCommand.spec(.full), "sync": RunCommand.spec(.sync), "status": StatusCommand.spec,
        "versions": VersionsCommand.spec, "diff": DiffCommand.spec, "export": ExportCommand.spec,
        "verify": VerifyCommand.spec, "install": InstallCommand.spec, "show": ShowCommand.spec,
        "search": SearchCommand.spec, "prune": PruneCommand.spec, "serve": ServeCommand.spec,
        "backup": BackupCommand.spec,
    ]

    static func print(topic: String?) -> ExitStatus {
        guard let topic, topic != "help", !topic.hasPrefix("-") else {
            Swift.print(overview)
            return .success
        }
        guard let command = commands[topic] else {
            standardError("pokesync: no help for \"\(topic)\"\n")
            Swift.print(overview)
            return .usage
        }
        Swift.print(command.help)
        return .success
    }
}
