import Foundation
import Testing

/// The reader depends on Foundation, SQLite and zlib only: no URLSession, which is the
/// updater's (`PokedexUpdater`). On Linux, a process that links FoundationNetworking loads
/// and relocates it, libcurl and libcurl's TLS libraries at start, called or not: megabytes
/// of resident memory an app that only reads would carry for nothing.
@Suite struct ReaderDependenciesTests {
    /// No source of the reader imports what would pull the network in (or what the
    /// platforms it builds for lack).
    @Test func theReaderImportsNoNetworking() throws {
        let folder = ReaderFixtures.packageRoot.appendingPathComponent("Sources/PokedexReader")
        let walker = try #require(FileManager.default.enumerator(atPath: folder.path))
        var offenders: [String] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                let module = line.split(separator: " ").last.map(String.init) ?? ""
                if ["FoundationNetworking", "Synchronization", "PokedexUpdater"].contains(module) {
                    offenders.append("\(relative): \(line)")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

    #if os(Linux)
    /// `pokedex-bench`, the reader as an app that only reads builds it, needs no
    /// FoundationNetworking (nor libcurl) from the dynamic loader.
    @Test func anAppThatOnlyReadsLoadsNoNetworking() async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidates = [binary.deletingLastPathComponent(), ReaderFixtures.packageRoot.appendingPathComponent(".build/debug")]
            .map { $0.appendingPathComponent("pokedex-bench") }
        let bench = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
                                 "no pokedex-bench beside the tests in \(candidates.map(\.path))")
        let (status, needed) = try await ReaderFixtures.run(["readelf", "-d", bench.path])
        try #require(status == 0, "readelf: \(needed)")
        #expect(needed.contains("libFoundation.so"), "readelf's answer is not what it seems: \(needed)")
        #expect(!needed.contains("libFoundationNetworking"), "\(needed)")
        #expect(!needed.contains("libcurl"), "\(needed)")
    }
    #endif
}
