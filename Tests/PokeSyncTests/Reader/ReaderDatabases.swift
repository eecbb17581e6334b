import Foundation
import PokedexReader
import Testing

/// Device databases for the reader tests: installed from real bundles (``SampleBundles``),
/// or, where a test needs a database the exporter would never write (another schema
/// version), made by `Tests/Support/make_device_db.py` from an api-data folder.
enum ReaderDatabases {
    struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs a Python tool of `Tests/Support` and returns its standard output.
    /// - Throws: ``ToolFailure`` naming the tool and its standard error when it exits non-zero.
    static func runPython(_ tool: String, _ arguments: [String]) async throws -> Data {
        let result = try await runProgram("python3", [TestPaths.support.appendingPathComponent(tool).path] + arguments)
        guard result.status == 0 else {
            throw ToolFailure(description: "\(tool) exited \(result.status): " + result.stderr)
        }
        return result.stdout
    }

    /// Builds `folder/current/pokedex.sqlite` (a device folder's layout) from `source`.
    @discardableResult
    static func makeDeviceFolder(_ folder: URL, source: URL = TestPaths.sample2026, sprites: String = "default",
                                 schemaVersion: String = String(DeviceSchema.version)) async throws -> URL {
        let current = folder.appendingPathComponent("current", isDirectory: true)
        try FileManager.default.createDirectory(at: current, withIntermediateDirectories: true)
        let database = current.appendingPathComponent("pokedex.sqlite")
        _ = try await runPython("make_device_db.py", ["--source", source.path, "--out", database.path, "--sprites", sprites,
                                               "--schema-version", schemaVersion])
        return database
    }

    /// Runs `body` with a Pokedex opened on a device folder installed from a real bundle of
    /// the 2026 sample, exported with `--sprites sprites` (``SampleBundles``).
    static func withSamplePokedex(sprites: String = "default", _ body: (Pokedex) throws -> Void) async throws {
        try body(try Pokedex(folder: try await SampleBundles.device(sprites: sprites)))
    }

    /// One answer of `search_oracle.py`.
    struct OracleAnswer: Decodable {
        let query: String
        /// `[id, rank]` pairs in result order.
        let hits: [[Int]]
    }

    /// The oracle's answers for `queries` (and its generated queries when `generate`).
    static func oracle(sources: [URL], queries: [String] = [], generate: Bool = false,
                       every: Int = 1) async throws -> [OracleAnswer] {
        var arguments = sources.flatMap { ["--source", $0.path] } + queries.flatMap { ["--query", $0] }
        if generate { arguments += ["--generate", "--every", String(every)] }
        let data = try await runPython("search_oracle.py", arguments)
        return try JSONDecoder().decode([OracleAnswer].self, from: data)
    }
}
