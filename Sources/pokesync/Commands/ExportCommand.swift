import Foundation
import PokeSyncCore

/// `pokesync export [--version N] [--format bundle|api-data] [--sprites SET] [--languages LIST] [--out PATH]`.
struct ExportCommand {
    static let version = OptionSpec.option("version", "N", .atLeast(1))
    static let format = OptionSpec.option("format", "bundle|api-data")
    static let out = OptionSpec.option("out", "PATH")
    static let sprites = OptionSpec.option("sprites", "SET", help: """
        the version's sprites to bundle (default: mirror.json's
        bundles.sprites, else default); a set the version was never mirrored
        with is a usage error; sprites it selected but their host has not
        delivered are left out, named in one warning line and the manifest's
        missing_sprites, and the export exits 2; a path listed twice counts
        once, and front_default alone is default
        """)
    static let languages = OptionSpec.option("languages", "LIST", help: """
        keep only these language codes (any case; en is always kept);
        default all; an unknown code is a usage error listing the version's
        """)
    static let replaceDamaged = OptionSpec.flag("replace-damaged", help: """
        move a damaged file aside (.NAME.damaged-TIME, never deleted) and
        write it afresh, instead of refusing
        """)
    static let baseURL = OptionSpec.option("base-url", "URL", help: """
        write every /api/v2/... URL as URL/api/v2/... and the name aliases, as
        ditto's transform does for a static deployment; without it URLs stay
        relative and there are no aliases: upstream's data/, byte for byte
        """)
    static let names = OptionSpec.flag("names", help: """
        the name aliases (default with --base-url): each named document again
        at api/v2/{kind}/{name}/index.json, each pokemon's encounters at
        api/v2/pokemon/{name}/encounters/index.json, so a static host answers
        /api/v2/pokemon/pikachu/ (each a hard link to the id's file, so no
        second copy on disk). A name two documents share gets the one
        serve answers (the later in the list), said in one line on stderr; a
        name that is not a plain path segment (empty, ., .., a /, a NUL, all
        digits, index.json) gets no alias, said likewise
        """)
    static let noNames = OptionSpec.flag("no-names", help: """
        no name aliases, even with --base-url
        """)
    static let gzip = OptionSpec.flag("gzip", help: """
        also each file's .gz beside it (no name or time in the header), for
        nginx's gzip_static or a CDN; the README has a static-hosting recipe
        """)

    /// `pokesync help export`.
    static let spec = CommandSpec(
        name: "export", positionals: "", positionalCount: 0...0,
        usage: [.optional(version), .optional(format), .optional(sprites), .optional(languages), .optional(out),
                .optional(replaceDamaged), .optional(baseURL), .either(names, noNames), .optional(gzip), .optional(.mirror)],
        sections: [.text("""
        bundle (the default) writes into the mirror's bundles/ folder (or --out DIR): the full
        bundle pokedex-N.tar.gz of the version (default: the newest), a delta
        pokedex-M-N.delta.tar.gz from every older retained version when N is the newest (none
        when it would not be smaller than the full bundle), then index.json, atomically. Files
        already published are kept as they are; files the index stops naming go after
        bundles.grace_hours (mirror.json, default \(MirrorConfig.Bundles.defaultGraceHours)). A version with a dangling reference is
        refused (65). The folder must be missing, empty, or pokesync's own (marked by
        .pokesync-bundles; an unmarked one written by an earlier pokesync, holding only export's
        names and of this mirror's lineage, is adopted): anything else is refused (64), untouched.
        A file already there under a name export writes is checked as verify checks a bundle,
        and against its name, before index.json may name it: a damaged one is refused (65).
        An old version that cannot be built (a dangling reference, sprites it was never
        mirrored with) gets no delta, said in a warning line (exit 2); the newest bundle and
        index.json are written. A version whose kinds cannot make a bundle (pokemon without
        pokemon-species) is said in one line and nothing is written (exit 0).
        """), .options([sprites, languages, replaceDamaged]), .text("""

        api-data writes the version as a PokeAPI/api-data tree in upstream's exact bytes (each
        file as Python's json.dumps(indent=4, sort_keys=True)): api/v2/index.json, every list in
        the source's order, every document, encounters and meta, and schema/v2/ (the JSON schemas
        ditto analyze infers over the tree). It can be served statically or crawled back with
        --source DIR; a whole-API mirror of an api-data commit exports as that commit's data/.
        --out DIR must not exist, or be an earlier export of pokesync's own (exactly
        .pokesync-export, api/ and schema/): the export is built beside it and renamed into
        place, and nothing else is ever removed or replaced (any other DIR, even an empty folder
        or one of dot-files, is refused with exit 64). Run as root with a DIR inside a mirror
        another user owns, it is refused (77) as the commands that write the mirror are.
        """),
                   .options([baseURL, names, noNames, gzip])],
        helpColumn: 21)

    let arguments: Arguments

    init(words: ArraySlice<String>) throws {
        arguments = try Arguments(words, command: Self.spec)
        try arguments.expectPositionals(Self.spec)
    }

    func execute() throws -> ExitStatus {
        let format = arguments[Self.format] ?? "bundle"
        for option in [Self.baseURL] where arguments[option] != nil && format != "api-data" {
            throw UsageError("--\(option.name) goes with --format api-data")
        }
        for flag in [Self.names, Self.noNames, Self.gzip] where arguments.has(flag) && format != "api-data" {
            throw UsageError("--\(flag.name) goes with --format api-data")
        }
        if arguments.has(Self.names) && arguments.has(Self.noNames) { throw UsageError("--names and --no-names contradict each other") }
        guard format == "api-data" else {
            guard format == "bundle" else { throw UsageError("--format takes bundle or api-data (got \"\(format)\")") }
            return try exportBundles()
        }
        guard let out = arguments[Self.out] else { throw UsageError("--format api-data needs --out DIR") }
        for option in [Self.sprites, Self.languages] where arguments[option] != nil {
            throw UsageError("--\(option.name) goes with bundles; an api-data export holds every document as served")
        }
        if arguments.has(Self.replaceDamaged) { throw UsageError("--replace-damaged goes with bundles") }
        let layout = MirrorLayout.resolve(option: arguments[.mirror])
        // This export only reads the store, so it takes no lock and meets no owner check
        // there; a tree root writes inside another user's mirror is as much the owner's
        // problem as a bundle, so it is refused the same way (77) before anything is read.
        try MirrorOwner.check(layout, writing: URL(fileURLWithPath: out))
        let store = try Store(layout: layout, create: false, readOnly: true)
        let baseURL = try arguments[Self.baseURL].map { try BaseURLOption.parse($0, option: "base-url") }
        let names: Bool? = arguments.has(Self.names) ? true : arguments.has(Self.noNames) ? false : nil
        let options = ApiDataExporter.Options(baseURL: baseURL, names: names, gzip: arguments.has(Self.gzip))
        let started = Date()
        let (version, summary) = try store.snapshot {
            let version = try store.resolveVersion(try arguments.integer(Self.version))
            return (version, try ApiDataExporter(store: store).export(version: version, to: URL(fileURLWithPath: out),
                                                                      options: options))
        }
        for note in summary.notes { standardError("pokesync: \(TerminalText.escaped(note))\n") }
        for line in summary.cleaned { print(TerminalText.escaped(line)) }
        let aliases = options.names ? ", \(summary.aliases) of them name aliases" : ""
        print(String(format: "exported version %d (%d documents, %d files%@, %.1f MB) to %@ in the api-data layout in %.1f s",
                     version, summary.documents, summary.files, aliases, Double(summary.bytes) / 1_000_000, out,
                     Date().timeIntervalSince(started)))
        return .success
    }
}
