import PokeSyncCore
import PokedexReader
import PokedexUpdater

/// What a command found, or how it says another layer's error in its own words (a wrong
/// command line is ``UsageError``).
enum CommandError: PokeSyncError {
    /// `verify` found damage; the line names the file and the count.
    case verifyFoundDamage(String)
    /// `show` found no pokemon or species by that name or id: a usage error, as a misspelt
    /// argument is.
    case notFound(query: String)
    /// An error whose message was reworded (see ``ScratchFolder/renaming(_:scratch:archive:)``),
    /// with its code.
    case reworded(String, code: ErrorCode)
    /// An ``UpdateError`` as `pokesync install` prints it: the library's message speaks to an
    /// app, which has no flags; here the flag that changes the outcome is named after it.
    case install(UpdateError)

    var code: ErrorCode {
        switch self {
        case .verifyFoundDamage: .verifyFoundDamage
        case .notFound: .notFound
        case .reworded(_, let code): code
        case .install(let underlying): underlying.code
        }
    }

    var description: String {
        switch self {
        case .verifyFoundDamage(let message), .reworded(let message, _):
            message
        case .notFound(let query):
            "no pokemon or species named \"\(query)\" in this bundle (try `pokesync search \(query)`)"
        case .install(let underlying):
            switch underlying {
            case .downgradeRefused: underlying.description + " (use --allow-downgrade)"
            // The download's deadline is --timeout: its two messages begin "timed out".
            case let .unreachable(_, reason) where reason.hasPrefix("timed out"): underlying.description + " (--timeout)"
            default: underlying.description
            }
        }
    }
}
