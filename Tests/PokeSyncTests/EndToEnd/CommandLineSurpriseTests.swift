import Foundation
import Testing

/// Command-line surprises a red team found: each answered with the usage code, one safe line,
/// or the same profile, rather than something a user did not mean.
@Suite("Command-line surprises, end to end")
struct CommandLineSurpriseTests {
    /// A mirror of the 2025 sample (no sprites) with its bundles exported.
    static func exported(in scratch: URL) async throws -> PokesyncCLI {
        let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
        let full = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
        #expect(full.status == 0, "\(full.stderr)")
        let export = try await cli.run(["export", "--sprites", "none"])
        #expect(export.status == 0, "\(export.stderr)")
        return cli
    }

    @Test func emptyOutIsAUsageErrorNotTheCurrentFolder() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.exported(in: scratch)
            for arguments in [["export", "--out", ""], ["export", "--out="], ["export", "--format", "api-data", "--out", ""],
                              ["show", "1", "--bundle", ""]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 64, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("empty"), "\(arguments): \(result.stderr)")
            }
        }
    }

    @Test func emptySearchIsAUsageError() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.exported(in: scratch)
            for terms in [[], [""], ["   "], [" ", "\t"]] {
                let result = try await cli.run(["search"] + terms)
                #expect(result.status == 64, "\(terms): \(result.stdout) \(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
            #expect(try await cli.run(["search", "eev"]).status == 0)
        }
    }

    @Test func controlCharactersAreNeverEchoedRaw() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.exported(in: scratch)
            let hostile = "\u{1B}]0;owned\u{07}\u{1B}[2J\r\nfake line\u{9B}"
            for arguments in [["search", hostile], ["show", hostile], ["export", "--sprites", hostile], ["verify", hostile], ["show", "1", "--bundle", hostile + ".tar.gz"]] {
                let result = try await cli.run(arguments, addMirror: arguments[0] != "verify")
                for output in [result.stdout, result.stderr] {
                    #expect(!output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) },
                            "\(arguments): \(output.debugDescription)")
                }
                #expect(result.stderr.split(separator: "\n").count <= 1, "\(arguments): \(result.stderr.debugDescription)")
                #expect((result.stdout + result.stderr).contains("\\e]0;owned"), "\(arguments)")
            }
        }
    }

    @Test func repeatedSpritePathsAreTheSameProfile() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            // The sample has no sprites, so any set naming some is refused by the builder before
            // anything is written; the profile is checked through the error's spelling.
            let twice = try await cli.run(["export", "--sprites", "front_default,front_default", "--out", scratch.appendingPathComponent("t").path])
            let once = try await cli.run(["export", "--sprites", "default", "--out", scratch.appendingPathComponent("o").path])
            #expect(twice.status == once.status)
            #expect(twice.stderr.replacingOccurrences(of: "/t/", with: "/o/") == once.stderr, "\(twice.stderr) vs \(once.stderr)")
            #expect(twice.stderr.contains("--sprites default asks for"), "\(twice.stderr)")
        }
    }

    @Test func unknownLanguageIsToldBeforeAnyBuild() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            let result = try await cli.run(["export", "--sprites", "none", "--languages", "en,xx"])
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("has no xx") && result.stderr.contains("ja"), "\(result.stderr)")
            // Refused before the build: no scratch database was made, no bundles folder either.
            #expect(!FileManager.default.fileExists(atPath: cli.mirror.appendingPathComponent("bundles").path))
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: cli.mirror.appendingPathComponent(".tmp").path)) ?? []).isEmpty)
        }
    }
}
