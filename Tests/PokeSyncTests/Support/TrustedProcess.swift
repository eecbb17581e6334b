import Foundation
import Testing

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
    static func run(_ arguments: [String], trusting certificate: URL,
                    environment added: [String: String] = [:]) async throws -> PokesyncCLI.Result {
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
        environment.merge(added) { _, added in added }
        process.environment = environment
        try await process.runToExit(heavy: true)
        return PokesyncCLI.Result(status: process.terminationStatus,
                                  stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                                  stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
