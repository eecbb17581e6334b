import Foundation

/// Where the test material lives, found from this file's own path so tests run from any directory.
enum TestPaths {
    /// The package root (the folder holding Package.swift).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // PokeSyncTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `Tests/Fixtures`, holding the small real PokeAPI samples.
    static let fixtures: URL = packageRoot.appendingPathComponent("Tests/Fixtures", isDirectory: true)

    /// The api-data sample cut from the 2025-12-02 snapshot (has pokemon 10263, lacks 10312).
    static let sample2025: URL = fixtures.appendingPathComponent("sample-2025-12-02", isDirectory: true)

    /// The api-data sample cut from the 2026-08-08 snapshot (has pokemon 10312 and pokedex 35).
    static let sample2026: URL = fixtures.appendingPathComponent("sample-2026-08-08", isDirectory: true)

    /// `Tests/Support`, holding the Python test tooling.
    static let support: URL = packageRoot.appendingPathComponent("Tests/Support", isDirectory: true)

    /// The PokeAPI stand-in server script.
    static let standInScript: URL = support.appendingPathComponent("pokeapi_server.py")

    /// A document of a sample, e.g. `document(in: sample2026, kind: "pokemon", id: 25)`.
    static func document(in sample: URL, kind: String, id: Int) -> URL {
        sample.appendingPathComponent("api/v2/\(kind)/\(id)/index.json")
    }
}

/// Runs `body` with a fresh, empty temporary folder and removes the folder afterwards,
/// also when `body` throws.
/// - Throws: what `body` throws, or the file system error when the folder cannot be created.
func withTemporaryDirectory<Result>(
    _ body: (URL) throws -> Result
) throws -> Result {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

/// Runs the async `body` with a fresh, empty temporary folder and removes the folder afterwards,
/// also when `body` throws.
/// - Throws: what `body` throws, or the file system error when the folder cannot be created.
func withTemporaryDirectory<Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (URL) async throws -> Result
) async throws -> Result {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

private func makeTemporaryDirectory() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("pokesync-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
