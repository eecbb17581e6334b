#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking

/// Sizes libcurl's connection cache under a URLSession, which FoundationNetworking leaves
/// at libcurl's default (it sets `CURLMOPT_MAX_HOST_CONNECTIONS` from
/// `httpMaximumConnectionsPerHost`, never `CURLMOPT_MAXCONNECTS`).
///
/// libcurl's default keeps at most 4 connections per transfer *in progress at that
/// moment*: each time a response ends, a cache holding more than that closes its oldest
/// idle connection. A crawler between two requests of a task (parsing, hashing, storing)
/// has few transfers in progress, so keep-alive connections were closed and opened again
/// all the time: a `full` of the ten kinds at concurrency 16 opened 173 connections for
/// 4,369 requests against the stand-in, 98 against nginx (libcurl's verbose log says
/// "Connection cache is full, closing the oldest one" once per new connection). With the
/// cache sized here, connections stay open for the whole run: one TLS handshake each.
///
/// There is no public API for it: the multi handle is found by reflection
/// (`URLSession.multiHandle.rawHandle`) and the option set through the `curl_multi_setopt`
/// of the libcurl FoundationNetworking has loaded, right after the session is made and
/// before any task can use the handle. If any of that is not found (another
/// FoundationNetworking), nothing is done and the default stays: more connections, no error.
enum ConnectionCache {
    /// `CURLMOPT_MAXCONNECTS` (`CURLOPTTYPE_LONG + 6`, curl/multi.h).
    private static let maxConnectsOption: Int32 = 6

    /// `curl_multi_setopt` is variadic; it is called here as a function of three fixed
    /// arguments. On the Linux ABIs Swift runs on (x86-64 System V, AArch64) a variadic
    /// callee reads integer arguments from the same registers as a fixed one (x86-64's
    /// `%al` vector count only decides whether it saves vector registers), so the call is
    /// the one C would make.
    private typealias MultiSetopt = @convention(c) (UnsafeMutableRawPointer, Int32, Int) -> Int32

    /// `curl_multi_setopt` of the libcurl already in the process (`RTLD_NOLOAD`: never loads one).
    private static let multiSetopt: MultiSetopt? = {
        guard let library = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_NOLOAD),
              let symbol = dlsym(library, "curl_multi_setopt") else { return nil }
        return unsafeBitCast(symbol, to: MultiSetopt.self)
    }()

    /// Lets libcurl keep up to `connections` connections open for `session`.
    /// Call it right after making the session, before its first task.
    /// - Returns: whether the cache was sized (false: the default stays).
    @discardableResult
    static func keep(_ connections: Int, for session: URLSession) -> Bool {
        guard connections > 0, let multiSetopt,
              let handle = Mirror(reflecting: session).descendant("multiHandle"),
              String(describing: type(of: handle)).hasSuffix("_MultiHandle"),
              let raw = Mirror(reflecting: handle).descendant("rawHandle") as? UnsafeMutableRawPointer else { return false }
        return multiSetopt(raw, maxConnectsOption, connections) == 0
    }
}
#endif
