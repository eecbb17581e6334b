import Foundation
import Testing
@testable import PokeSyncCore
@testable import PokedexReader
@testable import PokedexUpdater

/// Messages say what happened, where an operator can act on them: the file to edit by its
/// full path, and the articles' caps are the ones the code enforces.
@Suite("Messages name what happened")
struct MessageWordingTests {
    /// A `--mirror` given relative to the working directory (as cron's `cd` and a shell's
    /// `./Mirror` give it): the first run's line names mirror.json by its full path.
    @Test func theFirstRunNamesMirrorJSONByItsFullPath() async throws {
        try await withTemporaryDirectory { scratch in
            var cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            cli.directory = scratch
            let full = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none", "--mirror", "Mirror"],
                                   addMirror: false)
            try #require(full.status == 0, "\(full.stderr)")
            let path = scratch.standardizedFileURL.appendingPathComponent("Mirror/mirror.json").path
            #expect(path.hasPrefix("/"))
            #expect(full.stderr.contains("wrote \(path) with this mirror's choices"), "\(full.stderr)")
            #expect(!full.stderr.contains(" Mirror/mirror.json"), "\(full.stderr)")
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    /// "16,777,216".
    static func grouped(_ number: Int) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.groupingSeparator = ","
        formatter.usesGroupingSeparator = true
        return formatter.string(from: NSNumber(value: number)) ?? "\(number)"
    }

    /// "16 MiB (16,777,216 bytes)".
    static func spell(_ bytes: Int) -> String {
        "\(bytes >> 20) MiB (\(grouped(bytes)) bytes)"
    }

    /// Sources.md states the body caps the code enforces: documents and lists, linked files,
    /// documents read from a folder; and no longer the 16 MB it once gave linked files.
    @Test func sourcesStatesTheCapsTheCodeEnforces() throws {
        let article = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(
            "Sources/PokeSyncCore/PokeSyncCore.docc/Sources.md"), encoding: .utf8)
        let text = article.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let documents = HTTPClientConfiguration().maxBodyBytes
        #expect(text.contains("\(Self.spell(documents)) for the source's root, lists and documents"), "\(Self.spell(documents))")
        #expect(text.contains("\(Self.spell(SpriteFetcher.defaultMaxBytes)) for a linked file"))
        #expect(text.contains("refused past \(CanonicalJSON.defaultMaximumSize >> 20) MiB"))
        #expect(text.contains("a bomb stops at the cap (\(documents >> 20) MiB for a document, \(SpriteFetcher.defaultMaxBytes >> 20) MiB for a linked file)"))
        #expect(!text.contains("16 MB"), "a cap in MB the code does not have")
    }

    /// Installing.md states the updater's caps on the index, the manifest and the entries.
    @Test func installingStatesTheUpdatersCaps() throws {
        let article = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(
            "Sources/PokedexUpdater/PokedexUpdater.docc/Installing.md"), encoding: .utf8)
        let text = article.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("the index itself is read up to \(Self.spell(BundleIndex.maxBytes))"))
        #expect(text.contains("a bundle's `manifest.json` up to \(BundleManifest.maxBytes >> 20) MiB"))
        #expect(text.contains("the number of entries (\(Self.grouped(Updater.maxEntries)))"))
    }
}

/// A file host that sends `Content-Encoding: gzip` over its files' plain bytes: each file
/// is failed at its first answer, in words that say so, and asked for once.
@Suite("A linked file not in its announced encoding", .serialized)
struct LinkedFileEncodingTests {
    @Test func aFileNotGzipAsAnnouncedFailsAtItsFirstAnswer() async throws {
        try await withTemporaryDirectory { scratch in
            var options = StandInOptions(root: TestPaths.sample2026)
            options.fileHostFault = "bad-gzip"
            options.fileHostFaultTree = "sprites"
            try await withStandInServer(options) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                let run = try await cli.run(["full", "--source", server.baseURL.absoluteString, "--sprites", "default",
                                       "--sprite-source", server.spriteBaseURL.absoluteString, "--timeout", "5"])
                #expect(run.status == 2, "\(run.stdout) \(run.stderr)")
                #expect(run.stderr.contains("not gzip as announced (Content-Encoding: gzip)"), "\(run.stderr)")
                #expect(!(run.stdout + run.stderr).contains("URLError"), "\(run.stderr)")
                #expect(!(run.stdout + run.stderr).contains("truncated"), "\(run.stderr)")
                let sprites = try await server.stats().byPath.filter { $0.key.hasPrefix("/PokeAPI/sprites/") }
                #expect(!sprites.isEmpty)
                #expect(sprites.values.allSatisfy { $0 == 1 }, "\(sprites.filter { $0.value != 1 })")
            }
        }
    }
}
