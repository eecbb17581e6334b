import Foundation
import PokedexReader
import Testing

/// Device folders and databases for the reader's own tests, built without the crawler:
/// Tests/Support/make_device_db.py (python3 + sqlite3) turns a sample's api-data folder
/// into a device database, and the folder is laid out as the updater lays it out
/// (`DIR/versions/N/pokedex.sqlite`, `DIR/current -> versions/N`, switched by rename).
enum ReaderFixtures {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // PokedexReaderTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
    static let sample2025 = packageRoot.appendingPathComponent("Tests/Fixtures/sample-2025-12-02", isDirectory: true)
    static let sample2026 = packageRoot.appendingPathComponent("Tests/Fixtures/sample-2026-08-08", isDirectory: true)
    static let makeDeviceDB = packageRoot.appendingPathComponent("Tests/Support/make_device_db.py")

    /// A fresh temporary folder for `body`, removed afterwards even when it throws.
    static func withTemporaryFolder<T>(isolation: isolated (any Actor)? = #isolation,
                                       _ body: (URL) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("pokedex-reader-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    /// Writes a device database of `sample` to `out` with `meta.version` = `version`.
    static func makeDatabase(from sample: URL, at out: URL, version: Int) async throws {
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        let (status, output) = try await run(["python3", makeDeviceDB.path, "--source", sample.path, "--out", out.path,
                                        "--version", String(version), "--schema-version", String(DeviceSchema.version)])
        guard status == 0 else { throw Failure(description: "make_device_db.py exited \(status): \(output)") }
    }

    /// Runs a program found on PATH to its end: its exit status and what it wrote to
    /// standard output and error, together (the one runner of this test target, which
    /// cannot see PokeSyncTests' helpers).
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        // A file, not a pipe: nothing reads while the child runs, so a long answer cannot block it.
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("pokedex-reader-run-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let output = try FileHandle(forWritingTo: outputFile)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        // The exit is awaited, not waited for: the tests share Swift's cooperative pool (one
        // thread a core, none added when one blocks), and python or swiftc runs for seconds.
        // The handler is set before run(), when Foundation takes it.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let text = String(decoding: (try? Data(contentsOf: outputFile)) ?? Data(), as: UTF8.self)
        return (process.terminationStatus, text)
    }

    /// Installs version `version` of `sample` into the device folder `device` and points
    /// `current` at it in one rename, as the updater does.
    static func install(_ sample: URL, version: Int, into device: URL) async throws {
        let versionFolder = device.appendingPathComponent("versions/\(version)", isDirectory: true)
        try await makeDatabase(from: sample, at: versionFolder.appendingPathComponent("pokedex.sqlite"), version: version)
        let temporary = device.appendingPathComponent(".current.\(version).link")
        try FileManager.default.createSymbolicLink(atPath: temporary.path, withDestinationPath: "versions/\(version)")
        guard rename(temporary.path, device.appendingPathComponent("current").path) == 0 else {
            throw Failure(description: "cannot switch current to versions/\(version): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes an installed version's folder, as the updater tidies after a switch.
    static func delete(version: Int, in device: URL) throws {
        try FileManager.default.removeItem(at: device.appendingPathComponent("versions/\(version)", isDirectory: true))
    }
}
