import Foundation
import PokedexReader
import Testing

/// Device folders installed from real bundles of the 2026-08-08 sample, as an app gets
/// them: the sample mirrored over the stand-in with `--sprites all`, exported with the
/// asked sprite profile, installed with `pokesync install`. Built once per profile per
/// test process (the mirror once), then shared read-only: a current database never changes.
enum SampleBundles {
    struct Failure: Error, CustomStringConvertible { let description: String }

    // Each build is a task awaited by all who ask for it, so no lock is held across a build:
    // a thread blocked on one would be one of the test pool's two.
    private static let lock = NSLock()
    nonisolated(unsafe) private static var mirror: Task<URL, any Error>?
    nonisolated(unsafe) private static var devices: [String: Task<URL, any Error>] = [:]
    /// The device build asked for last: the next waits for it, because each export takes
    /// the mirror's lock and a second one at the same time is refused (exit 75).
    nonisolated(unsafe) private static var lastBuild: Task<URL, any Error>?
    private static let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("pokesync-sample-bundles-\(getpid())", isDirectory: true)

    /// The installed device folder of the sample exported with `--sprites sprites`.
    /// - Throws: ``Failure`` naming the step (mirror, export, install) that failed.
    static func device(sprites: String = "all") async throws -> URL {
        let build = lock.withLock {
            if let build = devices[sprites] { return build }
            let name = String(devices.count)
            let previous = lastBuild
            let build = Task {
                _ = await previous?.result
                return try await makeDevice(sprites: sprites, name: name)
            }
            devices[sprites] = build
            lastBuild = build
            return build
        }
        return try await build.value
    }

    private static func makeDevice(sprites: String, name: String) async throws -> URL {
        let mirrored = lock.withLock {
            if let mirrored = mirror { return mirrored }
            let mirrored = Task { try await makeMirror() }
            mirror = mirrored
            return mirrored
        }
        let mirrorFolder = try await mirrored.value
        let bundles = root.appendingPathComponent("bundles-\(name)"), device = root.appendingPathComponent("device-\(name)")
        try await run(["export", "--mirror", mirrorFolder.path, "--sprites", sprites, "--out", bundles.path], step: "export --sprites \(sprites)")
        try await run(["install", device.path, "--from", bundles.path], step: "install")
        return device
    }

    /// Mirrors the 2026 sample with every sprite, from a stand-in started for the purpose.
    private static func makeMirror() async throws -> URL {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let portFile = root.appendingPathComponent("port"), pidFile = root.appendingPathComponent("pid")
        let server = Process()
        server.executableURL = try PythonInterpreter.path.get()
        server.arguments = [TestPaths.standInScript.path, "--root", TestPaths.sample2026.path, "--host", "127.0.0.1",
                            "--port", "0", "--quiet", "--port-file", portFile.path, "--pid-file", pidFile.path]
        try server.run()
        defer { server.terminate(); server.waitUntilExit() }
        // Generous: on a loaded full run the stand-in's start (every body gzipped) is slow,
        // and a build that failed stays failed for every test that shares it.
        let deadline = Date().addingTimeInterval(180)
        var port: String?
        while port == nil && Date() < deadline && server.isRunning {
            port = (try? String(contentsOf: portFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if port?.isEmpty ?? true { port = nil; try await Task.sleep(for: .milliseconds(50)) }
        }
        guard let port else { throw Failure(description: "the stand-in did not start within 180 s") }
        let mirror = root.appendingPathComponent("Mirror")
        let base = "http://127.0.0.1:\(port)"
        try await run(["full", "--mirror", mirror.path, "--source", base + "/api/v2", "--sprite-source",
                 base + "/PokeAPI/sprites/master/", "--sprites", "all"], step: "full --sprites all")
        return mirror
    }

    private static func run(_ arguments: [String], step: String) async throws {
        let result = try await runProgram(PokesyncCLI.binary.path, arguments, heavy: true)
        guard result.status == 0 else { throw Failure(description: "pokesync \(step) exited \(result.status): \(result.stderr)") }
    }
}
