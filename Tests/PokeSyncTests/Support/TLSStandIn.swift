import Foundation
import Synchronization
import Testing

/// The TLS stand-in (`Tests/Support/tls_server.py`) as a child process on 127.0.0.1: HTTPS
/// with a self-signed certificate it makes with openssl, which this machine does not
/// trust. It counts the TCP connections it accepts, so a test sees every attempt.
final class TLSStandIn: Sendable {
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

    let port: Int
    let pid: pid_t
    /// `https://127.0.0.1:PORT`.
    let origin: URL
    /// The self-signed certificate (PEM): the CA bundle a trusting process is given.
    let certificate: URL
    private let folder: URL
    private let process: Mutex<Process?>

    private init(process: sending Process, port: Int, pid: pid_t, folder: URL) {
        self.process = Mutex(process)
        self.port = port
        self.pid = pid
        self.folder = folder
        origin = URL(string: "https://127.0.0.1:\(port)")!
        certificate = folder.appendingPathComponent("certs/cert.pem")
    }

    /// `127.0.0.1:PORT`, as an error line names the host.
    var hostAndPort: String { "127.0.0.1:\(port)" }

    /// Starts the server: static files under `root`, or a proxy to the http origin `backend`.
    static func start(root: URL? = nil, backend: URL? = nil) async throws -> TLSStandIn {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("pokesync-tls-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (portFile, pidFile) = (folder.appendingPathComponent("port"), folder.appendingPathComponent("pid"))
        let errorFile = folder.appendingPathComponent("stderr")
        try Data().write(to: errorFile)
        let process = Process()
        process.executableURL = try PythonInterpreter.path.get()
        var arguments = [TestPaths.support.appendingPathComponent("tls_server.py").path,
                         "--cert-dir", folder.appendingPathComponent("certs").path, "--port-file", portFile.path,
                         "--pid-file", pidFile.path, "--stats-file", folder.appendingPathComponent("stats.json").path]
        if let root { arguments += ["--root", root.path] }
        if let backend { arguments += ["--backend", backend.absoluteString] }
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        process.standardError = errorHandle
        try process.run()
        try? errorHandle.close()
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let port = readInteger(portFile), let pid = readInteger(pidFile) {
                return TLSStandIn(process: process, port: port, pid: pid_t(pid), folder: folder)
            }
            if !process.isRunning || ContinuousClock.now >= deadline {
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                let message = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
                try? FileManager.default.removeItem(at: folder)
                throw StandInServerError(description: "the TLS stand-in did not start: \(message)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The counters so far (connections are counted as they are accepted, before the handshake).
    func stats() throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: Data(contentsOf: folder.appendingPathComponent("stats.json")))
    }

    /// Stops the server and removes its folder. Calling it again does nothing.
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

/// Starts a TLS stand-in, runs `body` with it, and stops it afterwards, also when `body` throws.
func withTLSStandIn<Result>(root: URL? = nil, backend: URL? = nil, isolation: isolated (any Actor)? = #isolation,
                            _ body: (TLSStandIn) async throws -> Result) async throws -> Result {
    let server = try await TLSStandIn.start(root: root, backend: backend)
    defer { server.stop() }
    return try await body(server)
}

/// Runs a process that trusts one certificate without touching this machine's trust store:
/// in a private mount namespace (`unshare -rm`: a user namespace, no privilege needed where
/// the kernel allows them), the certificate is bound over the CA bundle FoundationNetworking's
/// libcurl reads. Where that cannot be done, ``isAvailable`` is false and the tests that
/// need it are skipped with ``skipMessage``.
enum TrustedProcess {
    static let bundle = "/etc/ssl/certs/ca-certificates.crt"
    static let skipMessage: Comment = """
        skipped: this machine cannot run a process with its own CA bundle (needs `unshare -rm` and \
        /etc/ssl/certs/ca-certificates.crt); the trusted TLS path is untested here
        """

    /// Whether `unshare -rm` can bind a file over the CA bundle here.
    static let isAvailable: Bool = {
        guard FileManager.default.fileExists(atPath: bundle),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-rm", "sh", "-c", "mount --bind /dev/null \(bundle)"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// `pokesync ARGS` run with `certificate` as its only trusted CA.
    static func run(_ arguments: [String], trusting certificate: URL) throws -> PokesyncCLI.Result {
        let name = UUID().uuidString
        let temporary = FileManager.default.temporaryDirectory
        let (out, err) = (temporary.appendingPathComponent("\(name).out"), temporary.appendingPathComponent("\(name).err"))
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-rm", "sh", "-c", "mount --bind \"$0\" \(bundle) && exec \"$@\"", certificate.path,
                             PokesyncCLI.binary.path] + arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "POKESYNC_MIRROR")
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        return PokesyncCLI.Result(status: process.terminationStatus,
                                  stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                                  stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
