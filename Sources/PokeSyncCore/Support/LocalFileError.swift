import Foundation

/// A local file could not be written or read (disk full, permissions): exit 74.
package struct LocalFileError: PokeSyncError {
    package var path: String
    package var reason: String

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    package init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    package var code: ErrorCode { .localFile }
    package var description: String { "\(path): \(reason)" }
}
