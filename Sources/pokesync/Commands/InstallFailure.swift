import PokeSyncCore
import PokedexReader
import PokedexUpdater

/// An ``UpdateError`` as `pokesync install` prints it: the library's message speaks to an
/// app, which has no flags; here the flag that changes the outcome is named after it.
struct InstallFailure: PokeSyncFailure {
    let underlying: UpdateError

    var exitStatus: ExitStatus { underlying.exitStatus }

    var description: String {
        switch underlying {
        case .downgradeRefused: underlying.description + " (use --allow-downgrade)"
        // The download's deadline is --timeout: its two messages begin "timed out".
        case let .unreachable(_, reason) where reason.hasPrefix("timed out"): underlying.description + " (--timeout)"
        default: underlying.description
        }
    }
}
