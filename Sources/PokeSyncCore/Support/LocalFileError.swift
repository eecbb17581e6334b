import Foundation

/// A local file could not be written or read (disk full, permissions): exit 74.
public struct LocalFileError: PokeSyncFailure {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    public var exitStatus: ExitStatus { .ioError }
    public var description: String { "\(path): \(reason)" }
}
