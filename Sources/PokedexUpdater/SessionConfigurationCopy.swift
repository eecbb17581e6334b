import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `URLSessionConfiguration` no one can change: a copy taken when it is handed in, and
/// only copies of it handed out. ``UpdaterSettings`` keeps the app's configuration this
/// way, so the settings can cross threads while the app goes on changing its own instance.
// @unchecked Sendable: `configuration` (a class that is not Sendable) is this instance's
// own copy, made in `init` and never changed or handed out afterwards; `copy()` only reads
// it, which any number of threads may do at once.
final class SessionConfigurationCopy: @unchecked Sendable {
    private let configuration: URLSessionConfiguration

    /// Takes a copy of `configuration`; later changes to `configuration` do not reach it.
    init(of configuration: URLSessionConfiguration) {
        self.configuration = Self.copy(of: configuration)
    }

    /// A new configuration with the settings of the one handed in, the caller's to change.
    func copy() -> URLSessionConfiguration {
        Self.copy(of: configuration)
    }

    private static func copy(of configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        // NSCopying answers Any; a URLSessionConfiguration copies as one.
        (configuration.copy() as? URLSessionConfiguration) ?? URLSessionConfiguration.ephemeral
    }
}
