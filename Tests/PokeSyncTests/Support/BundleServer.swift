import Foundation

/// `Tests/Support/bundle_server.py` serving a bundles folder on 127.0.0.1, with the
/// misbehaviour a test writes into its rules file (a status, a trickle, a gzip bomb, a
/// redirect, a transfer cut short); index.json carries an ETag and answers 304.
final class BundleServer: Sendable {
    let port: Int
    let pid: pid_t
    let folder: URL
    /// `http://127.0.0.1:PORT/index.json`.
    var indexURL: URL { URL(string: "http://127.0.0.1:\(port)/index.json")! }
    var rulesFile: URL { folder.appendingPathComponent("rules.json") }
    var logFile: URL { folder.appendingPathComponent("requests.log") }

    private init(port: Int, pid: pid_t, folder: URL) {
        self.port = port
        self.pid = pid
        self.folder = folder
    }

    /// Starts serving `root` and waits until it listens.
    static func start(serving root: URL) throws -> BundleServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pokesync-bundle-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let portFile = folder.appendingPathComponent("port"), pidFile = folder.appendingPathComponent("pid")
        try Data("{}".utf8).write(to: folder.appendingPathComponent("rules.json"))
        let process = Process()
        process.executableURL = try PythonInterpreter.path.get()
        process.arguments = [TestPaths.support.appendingPathComponent("bundle_server.py").path, "--root", root.path,
                             "--rules", folder.appendingPathComponent("rules.json").path,
                             "--port-file", portFile.path, "--pid-file", pidFile.path,
                             "--log", folder.appendingPathComponent("requests.log").path]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<500 {
            if let port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap(Int.init),
               let pid = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap(Int32.init) {
                return BundleServer(port: port, pid: pid, folder: folder)
            }
            usleep(20_000)
        }
        process.terminate()
        throw FixtureError("the bundle server did not listen")
    }

    /// Replaces the rules: request path -> rule (see bundle_server.py).
    func setRules(_ rules: [String: [String: Any]]) throws {
        let aside = folder.appendingPathComponent("rules.part")
        try JSONSerialization.data(withJSONObject: rules).write(to: aside)
        _ = rename(aside.path, rulesFile.path)
    }

    /// The requests so far: (path, If-None-Match).
    func requests() -> [(path: String, ifNoneMatch: String)] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map {
            let parts = $0.split(separator: "\t", omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// The User-Agent of every request so far, in order.
    func userAgents() -> [String] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map {
            let parts = $0.split(separator: "\t", omittingEmptySubsequences: false)
            return parts.count > 2 ? String(parts[2]) : ""
        }
    }

    func stop() {
        kill(pid, SIGKILL)
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }
}
