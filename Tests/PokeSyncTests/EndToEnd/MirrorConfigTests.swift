import Foundation
import Testing
@testable import PokeSyncCore

/// Every `mirror.json` key gets the command line's checks: a bad value is one usage
/// line (64) naming the key, never a crash or a value taken silently.
@Suite("mirror.json validation")
struct MirrorConfigTests {
    /// (file content, what the one error line must name)
    static let badFiles: [(String, String)] = [
        (#"{"rate": 0}"#, "\"rate\""),
        (#"{"rate": -5}"#, "\"rate\""),
        (#"{"rate": 1e-300}"#, "\"rate\""),
        (#"{"rate": "fast"}"#, "\"rate\""),
        (#"{"concurrency": 0}"#, "\"concurrency\""),
        (#"{"concurrency": -1}"#, "\"concurrency\""),
        (#"{"concurrency": 1.5}"#, "\"concurrency\""),
        (#"{"concurrency": 1000}"#, "\"concurrency\""),
        (#"{"concurrency": true}"#, "\"concurrency\""),
        (#"{"concurrency": "8"}"#, "\"concurrency\""),
        (#"{"concurency": 8}"#, "\"concurency\""),
        (#"{"timeout_seconds": 0}"#, "\"timeout_seconds\""),
        (#"{"retry": {"attempts": 0}}"#, "\"retry.attempts\""),
        (#"{"retry": {"base_delay_ms": -1}}"#, "\"retry.base_delay_ms\""),
        (#"{"retry": {"atempts": 3}}"#, "\"retry.atempts\""),
        (#"{"retry": 3}"#, "\"retry\""),
        (#"{"retention": {"keep": 0}}"#, "\"retention.keep\""),
        (#"{"bundles": {"grace_hours": -1}}"#, "\"bundles.grace_hours\""),
        (#"{"bundles": {"grace_hours": "2d"}}"#, "\"bundles.grace_hours\""),
        (#"{"allow_hosts": "example.com"}"#, "\"allow_hosts\""),
        (#"{"allow_hosts": [1]}"#, "\"allow_hosts\""),
        (#"{"sprites": "defualt"}"#, "\"sprites\""),
        (#"{"kinds": "Pokemon"}"#, "\"kinds\""),
        (#"{"kinds": "item,,machine"}"#, "\"kinds\""),
        (#"{"kinds": ["all"]}"#, "\"kinds\""),
        (#"{"kinds": "pokemon-encounters"}"#, "needs pokemon"),
        (#"{"source": 5}"#, "\"source\""),
        (#"{"contact": ["me"]}"#, "\"contact\""),
        (#"[1, 2]"#, "mirror.json"),
        (#"{"rate": 1,"#, "not valid JSON"),
    ]

    @Test func badKeysAreUsageErrorsNamingTheKey() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try FileManager.default.createDirectory(at: cli.mirror, withIntermediateDirectories: true)
            for (content, named) in Self.badFiles {
                try Data(content.utf8).write(to: cli.mirror.appendingPathComponent("mirror.json"))
                let result = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
                #expect(result.status == 64, "\(content): \(result.stderr)")
                #expect(result.stderr.hasPrefix("pokesync: \(cli.mirror.standardizedFileURL.path)/mirror.json"), "\(content): \(result.stderr)")
                #expect(result.stderr.contains(named), "\(content): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(content): \(result.stderr)")
            }
            // Nothing was started: no store was created.
            #expect(!FileManager.default.fileExists(atPath: cli.mirror.appendingPathComponent("store.sqlite").path))
        }
    }

    @Test func aFolderNamedMirrorJSONIsRefused() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try FileManager.default.createDirectory(at: cli.mirror.appendingPathComponent("mirror.json"), withIntermediateDirectories: true)
            for arguments in [["full", "--source", TestPaths.sample2025.path, "--sprites", "none"], ["prune"]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 64, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("mirror.json is a folder"))
            }
        }
    }

    @Test func theCommandLineHasTheSameLimits() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            for (option, value) in [("--sprites", "defualt"), ("--sprites", "front_defualt"), ("--rate", "0"), ("--rate", "1e-300"), ("--rate", "nan"), ("--concurrency", "0"),
                                    ("--concurrency", "257"), ("--timeout", "0")] {
                let result = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none", option, value])
                #expect(result.status == 64, "\(option) \(value): \(result.stderr)")
                #expect(result.stderr.contains(option) && result.stderr.split(separator: "\n").count == 1)
            }
        }
    }

    @Test func shippedAndFullFilesParse() throws {
        let shipped = try Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("Mirror/mirror.json"))
        let config = try MirrorConfig.parse(shipped, name: "mirror.json")
        #expect(config.rate == 20 && config.concurrency == 8 && config.retention.keep == 14)
        #expect(config.bundles.graceHours == 48)
        let full = try MirrorConfig.parse(Data(#"""
            {"rate": 2.5, "concurrency": 256, "sprite_source": null, "contact": "me@example.com",
             "bundles": {"grace_hours": 0}, "retry": {"attempts": 1, "base_delay_ms": 0}, "sprites": "front_default,back_shiny"}
            """#.utf8), name: "mirror.json")
        #expect(full.rate == 2.5 && full.concurrency == 256 && full.bundles.graceHours == 0 && full.retry.attempts == 1)
        #expect(full.contact == "me@example.com" && full.spriteSource == nil)
    }
}
