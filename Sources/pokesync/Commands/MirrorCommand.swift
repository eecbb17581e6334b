import PokeSyncCore

/// A command that reads or tends the mirror `--mirror` names (`status`, `versions`, `diff`,
/// `prune`, `backup`): the setup they share, in one place. Its words are parsed against the options
/// it declares, and its positionals counted against its usage line.
protocol MirrorCommand {
    /// Its options, positionals and help, declared once (a wrong count of positionals
    /// prints its usage line, exit 64).
    static var spec: CommandSpec { get }
    var arguments: Arguments { get }
    init(arguments: Arguments)
}

extension MirrorCommand {
    /// - Throws: `UsageError` for an unknown option, an option without its value, or a
    ///   wrong number of positionals.
    init(words: ArraySlice<String>) throws {
        let arguments = try Arguments(words, command: Self.spec)
        try arguments.expectPositionals(Self.spec)
        self.init(arguments: arguments)
    }

    /// The mirror folder: `--mirror DIR`, else `$POKESYNC_MIRROR`, else `./Mirror`.
    var layout: MirrorLayout { MirrorLayout.resolve(option: arguments[.mirror]) }
}
