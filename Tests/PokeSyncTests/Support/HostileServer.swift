import Foundation

/// What `Tests/Support/hostile_server.py` does to its one hostile resource (`--mode`).
enum HostileMode: String, Sendable {
    /// pokemon/1 is gzip: about 1 KB on the wire per MiB decoded.
    case gzipBomb = "gzip-bomb"
    /// pokemon/1 is a 200 without Content-Length that streams on.
    case noLength = "no-length"
    /// pokemon/1 names a sprite served without Content-Length, 100 MB by default.
    case hugeSprite = "huge-sprite"
    /// pokemon/1 announces a big Content-Length, then sends one byte a second.
    case trickle
    /// Accepts every connection and never answers.
    case silent
    /// pokemon/1 and /index.json are chunked 200s that never end.
    case endless
    /// pokemon 1 to 8 are valid and name a sprite and a cry each; every sprite and cry
    /// (and /index.json) is a chunked 200 that never ends.
    case endlessFiles = "endless-files"
}

/// What the hostile server counted of its hostile bodies (its `--stats-file`).
struct HostileStats: Decodable, Sendable {
    /// Hostile bodies started.
    var bodies: Int
    /// Hostile bodies still being written.
    var streaming: Int
    /// The most bytes written of one body (so far, for one still streaming).
    var largest: Int
    /// Bytes written of each finished body.
    var sent: [Int]
}

/// The hostile stand-in running as a child process on 127.0.0.1 (a ``ScriptServer``:
/// the real interpreter, with a port file and a pid file it writes once listening).
final class HostileServer: Sendable {
    private let server: ScriptServer
    var port: Int { server.port }
    /// The server's own pid (not a pyenv shim's).
    var pid: pid_t { server.pid }
    /// `http://127.0.0.1:PORT/api/v2`, the `--source` for pokesync.
    let baseURL: URL
    /// `http://127.0.0.1:PORT/PokeAPI/sprites/master/`, the `--sprite-source` for pokesync.
    let spriteBaseURL: URL
    /// `http://127.0.0.1:PORT/PokeAPI/cries/main/`, the `--cry-source` for pokesync.
    var cryBaseURL: URL { URL(string: "http://127.0.0.1:\(server.port)/PokeAPI/cries/main/")! }
    /// `http://127.0.0.1:PORT/index.json`, an `install --from` (endless in the endless modes).
    var indexURL: URL { URL(string: "http://127.0.0.1:\(server.port)/index.json")! }

    /// What the server counted of its hostile bodies so far.
    func stats() throws -> HostileStats { try server.stats(HostileStats.self) }

    private init(server: ScriptServer) {
        self.server = server
        baseURL = URL(string: "http://127.0.0.1:\(server.port)/api/v2")!
        spriteBaseURL = URL(string: "http://127.0.0.1:\(server.port)/PokeAPI/sprites/master/")!
    }

    /// Starts the server and waits until it listens.
    /// - Parameter size: `--size`, the hostile body's size (decoded, for a gzip bomb).
    /// - Throws: `StandInServerError` when Python cannot be found, or the server exits early
    ///   or does not listen in time (with what it wrote to standard error).
    static func start(_ mode: HostileMode, size: Int? = nil) async throws -> HostileServer {
        HostileServer(server: try await ScriptServer.start("hostile_server.py") { _ in
            ["--mode", mode.rawValue, "--quiet"] + (size.map { ["--size", String($0)] } ?? [])
        })
    }

    /// Stops the server (SIGTERM to its own pid, SIGKILL after 10 s). Calling it again does nothing.
    func stop() {
        server.stop()
    }
}

/// Starts the hostile server, runs `body` with it, and stops it afterwards, also when `body` throws.
func withHostileServer<Result>(
    _ mode: HostileMode, size: Int? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (HostileServer) async throws -> Result
) async throws -> Result {
    let server = try await HostileServer.start(mode, size: size)
    defer { server.stop() }
    return try await body(server)
}

/// What a child process cost, read from `/proc/PID` while it runs.
struct ChildUsage {
    /// Peak resident memory (`VmHWM`), in bytes.
    var peakResidentBytes = 0
    /// User plus system CPU time, in seconds.
    var cpuSeconds = 0.0
    /// Wall time from the first sample to the last.
    var wallSeconds = 0.0

    /// Samples `pid` every 50 ms until it exits or `limit` passes; the last sample before
    /// the exit stands (`VmHWM` only grows).
    static func watch(_ pid: pid_t, for limit: Duration, isRunning: () -> Bool) async -> ChildUsage {
        var usage = ChildUsage()
        let start = ContinuousClock.now
        while isRunning(), ContinuousClock.now - start < limit {
            if let peak = peakResident(pid) { usage.peakResidentBytes = max(usage.peakResidentBytes, peak) }
            if let cpu = cpuSeconds(pid) { usage.cpuSeconds = cpu }
            usage.wallSeconds = Double((ContinuousClock.now - start).components.seconds)
                + Double((ContinuousClock.now - start).components.attoseconds) / 1e18
            try? await Task.sleep(for: .milliseconds(50))
        }
        return usage
    }

    /// `VmHWM` of `/proc/PID/status`, in bytes.
    static func peakResident(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        return kilobytes * 1024
    }

    /// utime + stime of `/proc/PID/stat`, in seconds.
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
