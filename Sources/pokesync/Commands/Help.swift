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

    common options:
      --mirror DIR   the mirror folder (default: $POKESYNC_MIRROR, else ./Mirror)

    exit codes: 0 ok, 1 resources still failed after retries, a document that never parsed
      among them (nothing published), 64 usage (an option, a mirror.json key, an export --out
      that is not pokesync's), 65 bad data (corrupt store, shrunken lists, a dangling
      reference, a damaged or tampered bundle), 69 source unavailable or no PokeAPI v2 list
      at --source (it must be the API base ending in /api/v2), 74 I/O error,
      75 mirror or device folder locked, 130 interrupted (run the same command again to resume)

    `pokesync help COMMAND` explains one command.
    """

    static let runOptions = """
      --source URL|DIR        a PokeAPI base URL ending in /api/v2 (default https://pokeapi.co/api/v2;
                              a self-hosted one too, e.g. http://127.0.0.1:8000/api/v2) or an api-data folder
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
        A source that sends no ETag, Last-Modified nor deploy hash (a stock self-hosted PokeAPI) is
        downloaded whole every time; the run says so once (and `status` repeats it), and counts a
        document that came back the same as unchanged.

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
        usage: pokesync export [--version N] [--format bundle|api-data] [--sprites SET] [--languages LIST]
                               [--out PATH] [--replace-damaged] [--mirror DIR]

        bundle (the default) writes into the mirror's bundles/ folder (or --out DIR): the full
        bundle pokedex-N.tar.gz of the version (default: the newest), a delta
        pokedex-M-N.delta.tar.gz from every older retained version when N is the newest (none
        when it would not be smaller than the full bundle), then index.json, atomically. Files
        already published are kept as they are; files the index stops naming go after
        bundles.grace_hours (mirror.json, default 48). A version with a dangling reference is
        refused (65). The folder must be missing, empty, or pokesync's own (marked by
        .pokesync-bundles; an unmarked one written by an earlier pokesync, holding only export's
        names and of this mirror's lineage, is adopted): anything else is refused (64), untouched.
        A file already there under a name export writes is checked as verify checks a bundle,
        and against its name, before index.json may name it: a damaged one is refused (65).
          --sprites SET      the version's sprites to bundle (default: default); sprites the
                             version does not hold are a usage error; a path listed twice counts
                             once, and front_default alone is default
          --languages LIST   keep only these language codes (any case; en is always kept);
                             default all; an unknown code is a usage error listing the version's
          --replace-damaged  move a damaged file aside (.NAME.damaged-TIME, never deleted) and
                             write it afresh, instead of refusing

        api-data writes the version as a PokeAPI/api-data tree that can be served statically or
        crawled back with --source DIR. --out DIR must not exist, or be an earlier export of
        pokesync's own (exactly .pokesync-export and api/): the export is built beside it and
        renamed into place, and nothing else is ever removed or replaced (any other DIR, even an
        empty folder or one of dot-files, is refused with exit 64).
        """,
        "verify": """
        usage: pokesync verify PATH

        A mirror folder: the SQLite store (quick_check), every document of every retained
        version and every sprite object against its SHA-256, and the sprite tree against the
        version it records (a run brings the tree to a new version after publishing it; a tree
        part way is said in a note, not counted as damage).
        A bundles folder (index.json), a bundle (.tar.gz) or a delta: the archive's gzip and tar
        integrity through the same safe extraction a device uses, every file against the
        manifest's size and SHA-256 (and the index's), PRAGMA integrity_check, the database's
        meta, content_digest recomputed; in a bundles folder a delta is also applied to its
        base's database when that full bundle is still there.
        Exit 0 when all is sound, 65 naming the first bad file otherwise.
        """,
        "install": """
        usage: pokesync install DIR --from URL|DIR [--allow-downgrade] [--timeout S]

        Installs or updates the device folder DIR from an index.json URL or a bundles folder:
        the delta from the installed version when the index has one, else the full bundle
        (also when the delta cannot be fetched). Every download is checked (size, SHA-256,
        manifest, content_digest) before DIR/current switches; killed at any moment, DIR opens
        at the old version and the next install finishes the job. Over HTTP the index is asked
        for with its last ETag (304: already current), only same-server redirects are
        followed, and any Content-Encoding but identity is refused.
          --timeout S             a download moving less than 1 kB/s averaged over S seconds
                                  ends as a timeout (1-3600, default 30)
        Exit 65 for a tampered, truncated or wrong-base download, a lying index, a newer schema
        or a refused downgrade; 69 source unreachable or timed out; 74 I/O; 75 another install.
        """,
        "show": """
        usage: pokesync show NAME|ID [--bundle PATH] [--language L] [--json]

        The detail an app shows: types, size, base stats as bars, abilities, moves, sprites,
        genus and flavor text, the damage each attacking type does to it, and the evolution
        chain as a tree; names of the pokemon, its types, abilities, moves and stats, the
        genus and texts in L (an API code: fr, ko, ja-hrkt, zh-hant), else English. NAME is a
        pokemon's name, or a species' name (its default pokemon). PATH is an installed device
        folder, a .tar.gz bundle (only its manifest and database are extracted, to a temporary
        folder) or a bundles folder (its index must name a file in it); the default is the full
        bundle the mirror's bundles/index.json names. --json prints one object (id, name, types, height,
        weight, stats, abilities, moves, sprites, genus, flavor_text, evolution_chain,
        type_defense: attacking type to factor, and localized_name, type_names, ability_names,
        move_names, stat_names in L).
        Exit 64 when nothing has that name or id.
        """,
        "search": """
        usage: pokesync search TERM... [--bundle PATH] [--limit N] [--language L] [--json]

        What an app's search field finds: every term must be part of the pokemon's name, its
        species' name in a language of the bundle, or its types (slugs, and their names in each
        language of the bundle: "eau", "물"); accents and case are ignored. Exact matches
        first, then prefixes, then the rest, each by id. --json prints
        [{"id": 6, "name": "charizard", "types": ["fire", "flying"], "localized_name": "Dracaufeu"}, ...]
        in that order, localized_name in L (else English). No term (or only spaces) is a usage
        error (64).
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
