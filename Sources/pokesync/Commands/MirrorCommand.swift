import PokeSyncCore

/// A command that reads or tends the mirror `--mirror` names (`status`, `versions`, `diff`,
/// `prune`, `backup`): the setup they share, in one place. Its words are parsed against the options
/// and flags its help names, and its positionals counted against its usage line.
protocol MirrorCommand {
    /// The options and flags it takes; its help names each (a test holds them together).
    static var options: Set<String> { get }
    static var flags: Set<String> { get }
    /// Its help text; the first paragraph is the usage line a wrong count prints (exit 64).
    static var help: String { get }
    /// How many positionals it takes.
    static var positionalCount: ClosedRange<Int> { get }
    var arguments: Arguments { get }
    init(arguments: Arguments)
}

extension MirrorCommand {
    /// - Throws: `UsageError` for an unknown option, an option without its value, or a
    ///   wrong number of positionals.
    init(words: ArraySlice<String>) throws {
        let arguments = try Arguments(words, options: Self.options, flags: Self.flags)
        try arguments.expectPositionals(Self.positionalCount, usage: Help.synopsis(Self.help))
        self.init(arguments: arguments)
    }

    /// The mirror folder: `--mirror DIR`, else `$POKESYNC_MIRROR`, else `./Mirror`.
    var layout: MirrorLayout { MirrorLayout.resolve(option: arguments.options["mirror"]) }
}
