import PokeSyncCore

/// `pokesync help [COMMAND]` and `--help`: the truth about what this build does.
enum Help {
    static let overview = """
    pokesync \(PokeSync.version): an offline mirror of the PokeAPI (REST v2).

    usage: pokesync COMMAND [options]

    commands:
      full       mirror every pokemon, pokemon-species, pokedex and evolution-chain (and sprites) as a new version
      sync       bring the mirror up to date, fetching only what changed (the nightly job)
      status     the latest version, and the run in progress with its progress
      versions   every retained version
      diff       what changed between two versions
      export     write a version out (--format api-data)
      prune      drop old versions, keeping the newest N
      verify     check a mirror folder: the store, every document and sprite against its SHA-256, the sprite tree
      install    install or update a device folder from an index URL or a bundles folder

    common options:
      --mirror DIR   the mirror folder (default: $POKESYNC_MIRROR, else ./Mirror)

    exit codes: 0 ok, 1 resources still failed after retries, a document that never parsed
      among them (nothing published), 64 usage (an option, a mirror.json key, an export --out
      that is not an earlier export), 65 bad data or corrupt store, 69 source unavailable,
      74 I/O error, 75 mirror locked, 130 interrupted (run the same command again to resume)

    `pokesync help COMMAND` explains one command.
    """

    static let runOptions = """
      --source URL|DIR        a PokeAPI base URL (default https://pokeapi.co/api/v2) or an api-data folder
      --sprite-source URL|DIR where sprite bytes come from: replaces
                              https://raw.githubusercontent.com/PokeAPI/sprites/master/ (a sprites clone or server);
                              a sprite URL outside that layout (.../PokeAPI/sprites/master/sprites/) is refused
      --sprites SET           none, default (front_default), artwork (other/official-artwork), all,
                              or a comma list of sprite paths under `sprites`: a field such as front_default,
                              or other/... or versions/... ending in one (default from mirror.json)
      --concurrency N         requests in flight at most (default 8)
      --rate R                requests per second at most (default: no cap; be kind to pokeapi.co)
      --allow-host HOST[:PORT][,..]  more origins sprites may be fetched from (https:443 and http:80 without a port)
      --timeout S             seconds of silence before a request is retried (default 30);
                              one attempt ends after 4 x S whatever the server sends
      --allow-shrink          publish even when a kind's list lost more than 5% of the latest version's
                              entries (without it such a run exits 65 and publishes nothing; the next
                              run lists those kinds again)
      --mirror DIR            the mirror folder
    """

    static let topics: [String: String] = [
        "full": """
        usage: pokesync full [options]

        Fetches every document (and the selected sprites) unconditionally and publishes the
        next version. Interrupted (Ctrl-C, kill, crash)? Run the same command again: it resumes.

        \(runOptions)
        """,
        "sync": """
        usage: pokesync sync [options] [--revalidate]

        Re-lists every kind and revalidates what the store has with conditional requests;
        publishes a version only when something changed ("no changes since version N" otherwise).
        When the source's deploy (X-PokeAPI-Hash) is unchanged, the per-document checks are skipped;
        sprites (another repository, updated on its own) are always revalidated.

        \(runOptions)
          --revalidate            check every document and sprite even when the deploy is unchanged
        """,
        "status": """
        usage: pokesync status [--json] [--mirror DIR]

        The latest version, and the run in progress (done/total, failures): running, stopped
        with how it ended (failed after retries, source unavailable, I/O error), or interrupted
        (killed). --json also lists every refused or missing sprite (latest.sprite_reports).
        A --mirror that is a file or does not exist is a usage error (64).
        """,
        "versions": "usage: pokesync versions [--json] [--mirror DIR]\n\nEvery retained version with its date, mode, counts and source.",
        "diff": """
        usage: pokesync diff [FROM [TO]] [--json] [--mirror DIR]

        What was added, removed and changed between two versions (default: the last two),
        with the JSON paths that differ. A change of formatting or serving host is not a change.
        """,
        "export": """
        usage: pokesync export --format api-data --out DIR [--version N] [--mirror DIR]

        Writes a version (default: the latest) as a PokeAPI/api-data tree that can be served
        statically or crawled back with --source DIR. DIR must not exist, or be an earlier
        export of pokesync's own (exactly .pokesync-export and api/): the export is built beside
        it and renamed into place, and nothing else is ever removed or replaced (any other DIR,
        even an empty folder or one of dot-files, is refused with exit 64).
        The bundle format is not in this build yet.
        """,
        "verify": """
        usage: pokesync verify MIRROR

        Reads back everything a mirror folder holds: the SQLite store (quick_check), every
        document of every retained version and every sprite object against its SHA-256, and
        the sprite tree against the version it records (a run brings the tree to a new version
        after publishing it; a tree part way is said in a note, not counted as damage).
        Exit 0 when all is sound, 65 otherwise, with one line per problem. Bundles and deltas come with the bundle format.
        """,
        "install": """
        usage: pokesync install DIR --from URL|DIR [--allow-downgrade]

        Installs or updates the device folder DIR from an index.json URL or a bundles folder:
        the delta from the installed version when the index has one, else the full bundle.
        Every download is checked (size, SHA-256, manifest, content_digest) before
        DIR/current switches; killed at any moment, DIR opens at the old version and the next
        install finishes the job. Exit 65 for a tampered, truncated or wrong-base download, a
        newer schema or a refused downgrade; 69 source unreachable; 74 I/O; 75 another install.
        """,
        "prune": """
        usage: pokesync prune [--keep N] [--mirror DIR]

        Drops all but the newest N versions (default: retention.keep in mirror.json) and frees documents and sprite bytes no retained
        version needs. Never touches the latest version or a run in progress.
        """,
    ]

    static func print(topic: String?) -> ExitStatus {
        guard let topic, topic != "help", !topic.hasPrefix("-") else {
            Swift.print(overview)
            return .success
        }
        guard let text = topics[topic] else {
            standardError("pokesync: no help for \"\(topic)\"\n")
            Swift.print(overview)
            return .usage
        }
        Swift.print(text)
        return .success
    }
}
