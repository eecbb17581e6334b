import PokeHTTP
import PokeSyncCore

/// Why `serve` could not start or keep serving: the HTTP server's failure, with the exit
/// status the command ends with (the HTTP layer knows nothing of the command's codes).
package struct ServeError: PokeSyncError, Equatable {
    package let failure: HTTPServerError

    package init(_ failure: HTTPServerError) {
        self.failure = failure
    }

    package var description: String { failure.description }

    package var code: ErrorCode {
        switch failure {
        case .cannotListen: .cannotListen
        case .system, .cannotOpenLog: .serveSystem
        }
    }

    /// Runs `body`, its HTTP failure mapped to a `ServeError`.
    static func mapping<Result>(_ body: () throws(HTTPServerError) -> Result) throws(ServeError) -> Result {
        do { return try body() } catch { throw ServeError(error) }
    }
}
