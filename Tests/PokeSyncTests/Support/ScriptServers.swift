import Foundation
import Synchronization

/// A Python server of `Tests/Support` as a child process on 127.0.0.1, with a folder of its
/// own for its port, pid and stats files (`--port-file`, `--pid-file`, `--stats-file`).
final class ScriptServer: Sendable {
    let port: Int
    let pid: pid_t
    /// The server's folder (removed by ``stop()``).
    let folder: URL
    private let process: Mutex<Process?>

    private init(process: sending Process, port: Int, pid: pid_t, folder: URL) {
        self.process = Mutex(process)
        self.port = port
        self.pid = pid
        self.folder = folder
    }

    /// Starts `script` with `arguments(folder)` and waits until it listens.
    /// - Parameter writesStats: the script takes `--stats-file` (``stats(_:)`` reads it).
    static func start(_ script: String, writesStats: Bool = true, arguments: (URL) -> [String]) async throws -> ScriptServer {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("pokesync-\(script)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (portFile, pidFile) = (folder.appendingPathComponent("port"), folder.appendingPathComponent("pid"))
        let errorFile = folder.appendingPathComponent("stderr")
        try Data().write(to: errorFile)
        let process = Process()
        process.executableURL = try PythonInterpreter.path.get()
        process.arguments = [TestPaths.support.appendingPathComponent(script).path, "--port-file", portFile.path,
                             "--pid-file", pidFile.path]
            + (writesStats ? ["--stats-file", folder.appendingPathComponent("stats.json").path] : [])
            + arguments(folder)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        process.standardError = errorHandle
        try process.run()
        try? errorHandle.close()
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let port = readInteger(portFile), let pid = readInteger(pidFile) {
                return ScriptServer(process: process, port: port, pid: pid_t(pid), folder: folder)
            }
            if !process.isRunning || ContinuousClock.now >= deadline {
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                let message = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
                try? FileManager.default.removeItem(at: folder)
                throw StandInServerError(description: "\(script) did not start: \(message)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The stats file as the server last wrote it.
    func stats<Stats: Decodable>(_ type: Stats.Type) throws -> Stats {
        try JSONDecoder().decode(type, from: Data(contentsOf: folder.appendingPathComponent("stats.json")))
    }

    /// Stops the server (SIGTERM to its own pid) and removes its folder. Calling it again does nothing.
    func stop() {
        guard let process = process.withLock({ stored -> Process? in
            defer { stored = nil }
            return stored
        }) else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        stop()
    }

    private static func readInteger(_ file: URL) -> Int? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// The TLS stand-in (`Tests/Support/tls_server.py`): HTTPS with a self-signed certificate
/// it makes with openssl, which this machine does not trust. It counts the TCP connections
/// it accepts, so a test sees every attempt.
struct TLSStandIn: Sendable {
    /// The counters of the server's stats file.
    struct Stats: Decodable, Sendable {
        var connections: Int
        var handshakes: Int
        var handshakeFailures: Int
        var requests: Int

        enum CodingKeys: String, CodingKey {
            case connections, handshakes, requests
            case handshakeFailures = "handshake_failures"
        }
    }

    let server: ScriptServer
    var port: Int { server.port }
    /// `https://127.0.0.1:PORT`.
    var origin: URL { URL(string: "https://127.0.0.1:\(port)")! }
    /// `127.0.0.1:PORT`, as an error line names the host.
    var hostAndPort: String { "127.0.0.1:\(port)" }
    /// The self-signed certificate (PEM): the CA bundle a trusting process is given.
    var certificate: URL { server.folder.appendingPathComponent("certs/cert.pem") }

    /// Starts the server: static files under `root`, or a proxy to the http origin `backend`.
    /// - Parameter names: the certificate's subjectAltName, e.g. `DNS:other.example`.
    static func start(root: URL? = nil, backend: URL? = nil, names: String? = nil) async throws -> TLSStandIn {
        TLSStandIn(server: try await ScriptServer.start("tls_server.py") { folder in
            ["--cert-dir", folder.appendingPathComponent("certs").path] + (names.map { ["--names", $0] } ?? [])
                + (root.map { ["--root", $0.path] } ?? []) + (backend.map { ["--backend", $0.absoluteString] } ?? [])
        })
    }

    /// The counters so far (connections are counted as they are accepted, before the handshake).
    func stats() throws -> Stats { try server.stats(Stats.self) }
}

/// The forward proxy (`Tests/Support/proxy_server.py`) that `http_proxy` and `https_proxy` name.
struct ProxyStandIn: Sendable {
    struct Stats: Decodable, Sendable {
        /// CONNECT tunnels asked for (https through the proxy).
        var connects: Int
        /// Plain-http requests forwarded.
        var gets: Int
        /// `CONNECT host:port` or `GET url`, the first 200.
        var targets: [String]
    }

    let server: ScriptServer
    /// `http://127.0.0.1:PORT`, the value of `http_proxy` or `https_proxy`.
    var url: String { "http://127.0.0.1:\(server.port)" }

    func stats() throws -> Stats { try server.stats(Stats.self) }
}

/// Starts a forward proxy, runs `body` with it, and stops it afterwards, also when `body` throws.
/// - Parameter refusing: a status (407, 403) the proxy answers every request with.
func withProxyStandIn<Result>(refusing: Int? = nil, isolation: isolated (any Actor)? = #isolation,
                              _ body: (ProxyStandIn) async throws -> Result) async throws -> Result {
    let proxy = ProxyStandIn(server: try await ScriptServer.start("proxy_server.py") { _ in
        refusing.map { ["--refuse", String($0)] } ?? []
    })
    defer { proxy.server.stop() }
    return try await body(proxy)
}

/// Starts a TLS stand-in, runs `body` with it, and stops it afterwards, also when `body` throws.
func withTLSStandIn<Result>(root: URL? = nil, backend: URL? = nil, names: String? = nil,
                            isolation: isolated (any Actor)? = #isolation,
                            _ body: (TLSStandIn) async throws -> Result) async throws -> Result {
    let server = try await TLSStandIn.start(root: root, backend: backend, names: names)
    defer { server.server.stop() }
    return try await body(server)
}
