import Foundation
import Testing

/// Runs the built `pokesync` binary as a child process, the way users and cron do.
struct PokesyncCLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary next to the test bundle (`swift build` puts both in the same folder).
    static let binary: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pokesync")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/pokesync")
    }()

    let mirror: URL
    /// Variables added to the child's environment (`TMPDIR` for the scratch tests).
    var environment: [String: String] = [:]
    /// The child's working directory (a relative `--mirror` is read from it); nil: this process's.
    var directory: URL?

    init(mirror: URL, environment: [String: String] = [:]) {
        self.mirror = mirror
        self.environment = environment
    }

    /// Runs `pokesync ARGS --mirror MIRROR` to the end.
    @discardableResult
    func run(_ arguments: [String], addMirror: Bool = true) async throws -> Result {
        let child = start(arguments, addMirror: addMirror)
        try await ChildSlots.shared.running {
            try child.process.run()
            await child.waitUntilExit()
        }
        return child.result()
    }

    /// A started child, for tests that kill it part way.
    final class Child {
        let process: Process
        let stdoutFile: URL
        let stderrFile: URL
        private let exit: ProcessExit

        init(stdoutFile: URL, stderrFile: URL) {
            process = Process()
            exit = ProcessExit(of: process)
            self.stdoutFile = stdoutFile
            self.stderrFile = stderrFile
        }

        /// Returns once the started child has exited, giving the test's thread back meanwhile
        /// (see ``ProcessExit``).
        func waitUntilExit() async {
            await exit.wait()
        }

        // The output files live in the shared temporary folder: a suite runs thousands of
        // children, and none of their files may outlive the test that read them.
        deinit {
            try? FileManager.default.removeItem(at: stdoutFile)
            try? FileManager.default.removeItem(at: stderrFile)
        }

        func result() -> Result {
            Result(status: process.terminationStatus,
                   stdout: (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "",
                   stderr: (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "")
        }
    }

    func start(_ arguments: [String], addMirror: Bool = true) -> Child {
        let name = UUID().uuidString
        let temporary = FileManager.default.temporaryDirectory
        let child = Child(stdoutFile: temporary.appendingPathComponent("\(name).out"),
                          stderrFile: temporary.appendingPathComponent("\(name).err"))
        _ = FileManager.default.createFile(atPath: child.stdoutFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: child.stderrFile.path, contents: nil)
        child.process.executableURL = Self.binary
        child.process.arguments = arguments + (addMirror ? ["--mirror", mirror.path] : [])
        child.process.standardOutput = try? FileHandle(forWritingTo: child.stdoutFile)
        child.process.standardError = try? FileHandle(forWritingTo: child.stderrFile)
        child.process.standardInput = FileHandle.nullDevice
        if let directory { child.process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "POKESYNC_MIRROR")
        environment.merge(self.environment) { _, added in added }
        child.process.environment = environment
        return child
    }
}
