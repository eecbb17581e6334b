#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PokeSyncCore

/// Why `serve` could not start or keep serving.
package enum ServeError: PokeSyncFailure, Equatable {
    /// The address could not be bound or listened on (in use, not this host's, no permission).
    case cannotListen(address: String, reason: String)
    /// A system call the server needs failed (out of descriptors or memory).
    case system(String, Int32)
    /// `--access-log FILE` cannot be opened for appending.
    case cannotOpenLog(path: String, reason: String)

    package var description: String {
        switch self {
        case .cannotListen(let address, let reason): return "cannot listen on \(address): \(reason)"
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .cannotOpenLog(let path, let reason): return "cannot open the access log \(path): \(reason)"
        }
    }

    package var exitStatus: ExitStatus {
        switch self {
        case .cannotListen: return .unavailable
        case .system, .cannotOpenLog: return .ioError
        }
    }
}
