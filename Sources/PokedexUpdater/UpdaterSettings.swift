import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How an ``Updater`` talks to a server. A small struct so later settings (a header,
/// a retry policy) join it without changing the updater's initializer.
///
/// Settings are `Sendable`: they keep their own copy of the session configuration handed
/// to them, and hand out only copies of it, so nothing the app changes later reaches an
/// updater, and nothing an updater does reaches the app's configuration.
public struct UpdaterSettings: Sendable {
    /// Seconds over which an attempt must move at least ``minimumBytesPerSecond`` on
    /// average (a trickling server ends as a timeout), and of silence before a request
    /// gives up.
    public var timeout: TimeInterval
    /// The session configuration downloads start from (default: ephemeral, no cache).
    /// The updater copies it and sets its own timeout, cache and encoding rules.
    ///
    /// Setting it stores a copy, and reading it returns a new copy: change a configuration
    /// before setting it (`settings.configuration = changed`); a change made through the
    /// value read (`settings.configuration?.allowsCellularAccess = false`) changes only
    /// that copy, not the settings.
    public var configuration: URLSessionConfiguration? {
        get { storedConfiguration?.copy() }
        set { storedConfiguration = newValue.map(SessionConfigurationCopy.init(of:)) }
    }
    /// The app's configuration, copied when it was set.
    private var storedConfiguration: SessionConfigurationCopy?
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
    ///   - configuration: a base session configuration, or nil for an ephemeral one. The
    ///     settings keep a copy: changes made to `configuration` afterwards do not reach them.
    public init(timeout: TimeInterval = UpdaterSettings.defaultTimeout, configuration: URLSessionConfiguration? = nil) {
        self.timeout = min(max(timeout, Self.timeoutRange.lowerBound), Self.timeoutRange.upperBound)
        self.storedConfiguration = configuration.map(SessionConfigurationCopy.init(of:))
    }

    /// What the default transport makes its sessions from: the stored copy itself (it hands
    /// out only copies), not one more copy for every read.
    var sessionConfiguration: SessionConfigurationCopy? { storedConfiguration }
}
