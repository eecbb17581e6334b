import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How an ``Updater`` talks to a server. A small struct so later settings (a header,
/// a retry policy) join it without changing the updater's initializer.
///
/// `@unchecked Sendable`: `URLSessionConfiguration` is a class that is not `Sendable`;
/// the updater only ever copies it (`copy()`) before changing anything, so the shared
/// instance is never mutated after it is handed over.
public struct UpdaterSettings: @unchecked Sendable {
    /// Seconds over which an attempt must move at least ``minimumBytesPerSecond`` on
    /// average (a trickling server ends as a timeout), and of silence before a request
    /// gives up.
    public var timeout: TimeInterval
    /// The session configuration downloads start from (default: ephemeral, no cache).
    /// The updater copies it and sets its own timeout, cache and encoding rules.
    public var configuration: URLSessionConfiguration?
    /// What moves the bytes: nil for URLSession (made from ``configuration``). The
    /// `pokesync` command line sets its own libcurl transport here.
    package var transport: (any DownloadTransport)?

    /// The slowest average an attempt may keep over ``timeout`` seconds.
    public static let minimumBytesPerSecond = 1_000
    /// ``timeout`` when none is given (`install --timeout`'s default).
    public static let defaultTimeout: TimeInterval = 30
    /// The range `--timeout` and ``timeout`` take.
    public static let timeoutRange: ClosedRange<TimeInterval> = 1...3_600

    /// - Parameters:
    ///   - timeout: seconds (1...3600; default 30).
    ///   - configuration: a base session configuration, or nil for an ephemeral one.
    public init(timeout: TimeInterval = UpdaterSettings.defaultTimeout, configuration: URLSessionConfiguration? = nil) {
        self.timeout = min(max(timeout, Self.timeoutRange.lowerBound), Self.timeoutRange.upperBound)
        self.configuration = configuration
    }
}
