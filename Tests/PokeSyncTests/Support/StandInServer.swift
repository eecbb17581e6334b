import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// A fault the stand-in can inject (`--faults`).
enum StandInFault: String, Sendable, CaseIterable {
    /// A 500 with a small JSON body.
    case internalServerError = "500"
    /// A 503 with a small JSON body.
    case serviceUnavailable = "503"
    /// A 429 with `Retry-After: 1`.
    case tooManyRequests = "429"
    /// Headers with the full Content-Length, half the body, then a TCP reset.
    case reset
    /// A 200 without Content-Length and half the body, then a clean close.
    case truncate
}

/// How to start the stand-in; each property mirrors a flag of `pokeapi_server.py`.
struct StandInOptions: Sendable {
    /// The api-data folder to serve (`--root`).
    var root: URL
    /// The loopback address to bind (`--host`): 127.0.0.2 stands for a foreign host.
    var host = "127.0.0.1"
    /// The port (`--port`); 0 picks a free one. A sync test restarts on the same port.
    var port = 0
    /// Sleep before every answer (`--latency-ms`).
    var latencyMilliseconds: Int = 0
    /// Probability that an API or sprite request fails (`--fault-rate`).
    var faultRate: Double = 0
    /// Kinds of failure to choose among (`--faults`); empty means the server's default (all).
    var faults: [StandInFault] = []
    /// Seed of the fault dice (`--seed`).
    var seed: Int?
    /// The `X-PokeAPI-Hash` value (`--deploy-hash`).
    var deployHash: String?
    /// Salt mixed into generated sprites (`--sprite-salt`) for paths matching `spriteSaltGlob`.
    var spriteSalt: String?
    /// Comma-separated globs of sprite paths below `sprites/` the salt applies to (`--sprite-salt-glob`).
    var spriteSaltGlob: String?
    /// Comma-separated globs of sprite paths below `sprites/` answered 404 (`--sprite-missing`).
    var spriteMissing: String?
    /// Every sprite and cry request answered one bad way (`--file-host-fault`): `404`, `500`,
    /// `html` (a 200 error page), `drip` (a byte a second), `endless` (chunked, no end),
    /// `bad-gzip` (`Content-Encoding: gzip` over the plain bytes) or `placeholder` (one valid
    /// PNG for every path); or `fail-70` (500 for the same 70% of the paths every time, the
    /// others served) or `slow` (every file served after 0.4 s).
    var fileHostFault: String?
    /// Which tree the fault applies to (`--file-host-fault-tree`): `sprites`, `cries` or `all`.
    var fileHostFaultTree = "all"
    /// Every document request (not the root nor the lists) answered one bad way
    /// (`--document-fault`): `silent` (held open, nothing sent), `500`, or `bad-gzip`
    /// (`Content-Encoding: gzip` over the plain JSON).
    var documentFault: String?
    /// The origin written in absolute URLs instead of the listening one (`--url-base`):
    /// a self-hosted server behind a proxy that does not pass the Host header.
    var urlBase: String?
    /// Send no ETag, Last-Modified nor X-PokeAPI-Hash and never 304 (`--no-validators`).
    var noValidators = false
    /// Never gzip (`--no-gzip`).
    var noGzip = false
    /// Send gzip bodies chunked, without Content-Length, as nginx does (`--chunked-gzip`).
    var chunkedGzip = false
    /// `X-PokeAPI-Hash` on every API answer even with `noValidators`, as a proxy's
    /// `add_header` sends it (`--proxy-deploy-hash`).
    var proxyDeployHash: String?
    /// A second api-data folder that `StandInServer.switchSnapshot()` serves from then on
    /// (`--then-root`): upstream deploying a newer snapshot.
    var thenRoot: URL?
    /// The `X-PokeAPI-Hash` of `thenRoot` (`--then-deploy-hash`); nil: its own (another than `root`'s).
    var thenDeployHash: String?
    /// `proxyDeployHash` once switched (`--then-proxy-deploy-hash`); nil: the same.
    var thenProxyDeployHash: String?
    /// Answer this many document requests, then hold every further one open, sending
    /// nothing, until `switchSnapshot()` (`--stall-after`): a kill that lands after exactly
    /// so many documents, whatever the machine's speed.
    var stallAfterDocuments: Int?
    /// How long to wait for the server to listen; the full 377 MB fixture takes about 5 s to load.
    var startupTimeout: Duration = .seconds(60)

    init(root: URL) {
        self.root = root
    }

    var arguments: [String] {
        var arguments = ["--root", root.path, "--host", host, "--port", String(port), "--quiet"]
        if latencyMilliseconds > 0 { arguments += ["--latency-ms", String(latencyMilliseconds)] }
        if faultRate > 0 { arguments += ["--fault-rate", String(faultRate)] }
        if !faults.isEmpty { arguments += ["--faults", faults.map(\.rawValue).joined(separator: ",")] }
        if let seed { arguments += ["--seed", String(seed)] }
        if let deployHash { arguments += ["--deploy-hash", deployHash] }
        if let spriteSalt { arguments += ["--sprite-salt", spriteSalt] }
        if let spriteSaltGlob { arguments += ["--sprite-salt-glob", spriteSaltGlob] }
        if let spriteMissing { arguments += ["--sprite-missing", spriteMissing] }
        if let urlBase { arguments += ["--url-base", urlBase] }
        if let fileHostFault { arguments += ["--file-host-fault", fileHostFault, "--file-host-fault-tree", fileHostFaultTree] }
        if let documentFault { arguments += ["--document-fault", documentFault] }
        if noValidators { arguments.append("--no-validators") }
        if noGzip { arguments.append("--no-gzip") }
        if chunkedGzip { arguments.append("--chunked-gzip") }
        if let proxyDeployHash { arguments += ["--proxy-deploy-hash", proxyDeployHash] }
        if let thenRoot { arguments += ["--then-root", thenRoot.path] }
        if let thenDeployHash { arguments += ["--then-deploy-hash", thenDeployHash] }
        if let thenProxyDeployHash { arguments += ["--then-proxy-deploy-hash", thenProxyDeployHash] }
        if let stallAfterDocuments { arguments += ["--stall-after", String(stallAfterDocuments)] }
        return arguments
    }
}

/// The stand-in's `/_stats` counters.
struct StandInStats: Decodable, Sendable {
    /// Requests received, apart from `/_stats` itself.
    var requests: Int
    /// Requests per path (without query), whatever the answer.
    var byPath: [String: Int]
    /// Responses per status code, e.g. `"200"`, `"304"` (truncate and reset faults count as 200).
    var status: [String: Int]
    /// Body bytes sent, as sent (gzipped or cut short).
    var bodyBytes: Int
    /// Injected faults.
    var faults: Int
    /// Injected faults per kind, e.g. `"reset"`.
    var faultKinds: [String: Int]
    /// Connections accepted (a canary that must never be contacted has 0).
    var connections: Int?
    /// Document requests held by `--stall-after` (answered or given up since, too).
    var stalled: Int?

    enum CodingKeys: String, CodingKey {
        case requests, status, faults, connections, stalled
        case byPath = "by_path"
        case bodyBytes = "body_bytes"
        case faultKinds = "fault_kinds"
    }

    /// Requests to one path, e.g. `count(for: "/api/v2/pokemon/25/")`.
    func count(for path: String) -> Int { byPath[path] ?? 0 }
}

/// Why the stand-in could not be started or asked.
struct StandInServerError: Error, CustomStringConvertible {
    let description: String
}

/// The PokeAPI stand-in (`Tests/Support/pokeapi_server.py`) running as a child process on 127.0.0.1.
///
/// Start it with `withStandInServer(_:_:)`, which always stops it; a server started with
/// `start(_:)` must be stopped with `stop()`.
final class StandInServer: Sendable {
    /// The bound port.
    let port: Int
    /// The server's own pid, read from its pid file (not a pyenv shim's).
    let pid: pid_t
    /// `http://127.0.0.1:PORT`.
    let origin: URL
    /// `http://127.0.0.1:PORT/api/v2`, the `--source` for pokesync.
    let baseURL: URL
    /// `http://127.0.0.1:PORT/PokeAPI/sprites/master/`, the `--sprite-source` for pokesync.
    let spriteBaseURL: URL
    /// `http://127.0.0.1:PORT/PokeAPI/cries/main/`, the `--cry-source` for pokesync.
    let cryBaseURL: URL

    private let process: Mutex<Process?>
    private let folder: URL
    private let session: URLSession

    private init(process: sending Process, host: String, port: Int, pid: pid_t, folder: URL) {
        self.process = Mutex(process)
        self.port = port
        self.pid = pid
        self.folder = folder
        origin = URL(string: "http://\(host):\(port)")!
        baseURL = URL(string: "http://\(host):\(port)/api/v2")!
        spriteBaseURL = URL(string: "http://\(host):\(port)/PokeAPI/sprites/master/")!
        cryBaseURL = URL(string: "http://\(host):\(port)/PokeAPI/cries/main/")!
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// Starts the stand-in and waits until it listens.
    /// - Throws: `StandInServerError` when Python cannot be found, the server exits early
    ///   (its stderr is in the message, e.g. a `--root` that is not an api-data folder),
    ///   or it does not listen within `options.startupTimeout`.
    static func start(_ options: StandInOptions) async throws -> StandInServer {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("pokesync-standin-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let portFile = folder.appendingPathComponent("port")
        let pidFile = folder.appendingPathComponent("pid")
        let errorFile = folder.appendingPathComponent("stderr")
        try Data().write(to: errorFile)

        let process = Process()
        process.executableURL = try PythonInterpreter.path.get()
        process.arguments = [TestPaths.standInScript.path] + options.arguments
            + ["--port-file", portFile.path, "--pid-file", pidFile.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        process.standardError = errorHandle
        do {
            try process.run()
            try? errorHandle.close()  // the child holds its own copy
        } catch {
            try? errorHandle.close()
            try? FileManager.default.removeItem(at: folder)
            throw StandInServerError(description: "cannot start the stand-in server: \(error)")
        }

        let deadline = ContinuousClock.now + options.startupTimeout
        while true {
            if let port = readInteger(portFile), let pid = readInteger(pidFile) {
                return StandInServer(process: process, host: options.host, port: port, pid: pid_t(pid), folder: folder)
            }
            if !process.isRunning {
                let message = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
                let status = process.terminationStatus
                try? FileManager.default.removeItem(at: folder)
                throw StandInServerError(description: "the stand-in server exited with status \(status): "
                    + message.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if ContinuousClock.now >= deadline {
                process.terminate()
                process.waitUntilExit()
                try? FileManager.default.removeItem(at: folder)
                throw StandInServerError(description: "the stand-in server did not listen within \(options.startupTimeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The server's request counters.
    /// - Throws: `URLError` when the server cannot be reached, `StandInServerError` on a non-200
    ///   answer, `DecodingError` when the answer is not the stats JSON.
    func stats() async throws -> StandInStats {
        let (data, response) = try await session.data(from: origin.appendingPathComponent("_stats"))
        try Self.expectOK(response, "GET /_stats")
        return try JSONDecoder().decode(StandInStats.self, from: data)
    }

    /// Zeroes the server's request counters.
    /// - Throws: `URLError` when the server cannot be reached, `StandInServerError` on a non-200 answer.
    func resetStats() async throws {
        var request = URLRequest(url: origin.appendingPathComponent("_stats/reset"))
        request.httpMethod = "POST"
        let (_, response) = try await session.data(for: request)
        try Self.expectOK(response, "POST /_stats/reset")
    }

    /// Serves `StandInOptions.thenRoot` from now on and answers the documents held by
    /// `stallAfterDocuments` from it.
    /// - Throws: `URLError` when the server cannot be reached, `StandInServerError` on a non-200 answer.
    func switchSnapshot() async throws {
        var request = URLRequest(url: origin.appendingPathComponent("_switch"))
        request.httpMethod = "POST"
        let (_, response) = try await session.data(for: request)
        try Self.expectOK(response, "POST /_switch")
    }

    /// Stops the server (SIGTERM to its own pid) and waits for it to exit. Calling it again does nothing.
    func stop() {
        guard let process = process.withLock({ stored -> Process? in
            defer { stored = nil }
            return stored
        }) else { return }
        session.invalidateAndCancel()
        kill(pid, SIGTERM)
        // A clean exit takes well under a second; after 10 s it is killed outright.
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < deadline {
            usleep(10_000)
        }
        if process.isRunning {
            kill(pid, SIGKILL)
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        stop()
    }

    private static func expectOK(_ response: URLResponse, _ what: String) throws {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            throw StandInServerError(description: "\(what) answered \(status)")
        }
    }

    private static func readInteger(_ file: URL) -> Int? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Starts the stand-in, runs `body` with it, and stops it afterwards, also when `body` throws.
/// - Throws: `StandInServerError` when the server cannot start, or what `body` throws.
func withStandInServer<Result>(
    _ options: StandInOptions,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (StandInServer) async throws -> Result
) async throws -> Result {
    let server = try await StandInServer.start(options)
    defer { server.stop() }
    return try await body(server)
}

/// Starts the stand-in on an api-data folder with default options; see `withStandInServer(_:_:)`.
/// - Throws: `StandInServerError` when the server cannot start, or what `body` throws.
func withStandInServer<Result>(
    root: URL,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (StandInServer) async throws -> Result
) async throws -> Result {
    try await withStandInServer(StandInOptions(root: root), body)
}

/// The real Python interpreter. `python3` may be a pyenv shim whose pid is not the server's,
/// so it is asked once for `sys.executable` and that binary is started directly.
enum PythonInterpreter {
    static let path: Result<URL, StandInServerError> = {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sys; print(sys.executable)"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(StandInServerError(description: "cannot run python3: \(error)"))
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let path = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, !path.isEmpty else {
            return .failure(StandInServerError(description: "python3 did not report sys.executable"))
        }
        return .success(URL(fileURLWithPath: path))
    }()
}
