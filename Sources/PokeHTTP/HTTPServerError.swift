#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the HTTP server could not start or keep serving. The command maps it to an exit
/// status (the server itself knows nothing of the command's codes).
package enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// The address could not be bound or listened on (in use, not this host's, no permission).
    case cannotListen(address: String, reason: String)
    /// A system call the server needs failed (out of descriptors or memory).
    case system(String, Int32)
    /// The access log's file cannot be opened for appending.
    case cannotOpenLog(path: String, reason: String)

    package var description: String {
        switch self {
        case .cannotListen(let address, let reason): return "cannot listen on \(address): \(reason)"
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .cannotOpenLog(let path, let reason): return "cannot open the access log \(path): \(reason)"
        }
    }
}
