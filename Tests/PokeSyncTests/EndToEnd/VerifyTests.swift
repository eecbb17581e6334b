import Foundation
import Testing
@testable import PokeSyncCore

@Suite("Verify a mirror, end to end", .serialized)
struct VerifyTests {
    @Test func soundMirrorsPassAndDamageIsNamed() async throws {
        try await withTemporaryDirectory { scratch in
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
                #expect(try await cli.run(["full", "--source", server.baseURL.absoluteString, "--sprite-source",
                                     server.spriteBaseURL.absoluteString, "--sprites", "default"]).status == 0)
                let sound = try await cli.run(["verify", cli.mirror.path], addMirror: false)
                #expect(sound.status == 0, "\(sound.stdout)\(sound.stderr)")
                #expect(sound.stdout.contains("all sound"))

                // Same size, other bytes: only the hash can tell.
                let tree = cli.mirror.appendingPathComponent("sprites/pokemon/25.png")
                var bytes = try Data(contentsOf: tree)
                bytes[bytes.count / 2] ^= 0xFF
                // Write through the hard link, as a careless editor of the tree would.
                let handle = try FileHandle(forWritingTo: tree)
                try handle.write(contentsOf: bytes)
                try handle.close()
                try Data("stray".utf8).write(to: cli.mirror.appendingPathComponent("sprites/pokemon/stray.png"))
                try await runTool("sqlite3", [cli.mirror.appendingPathComponent("store.sqlite").path,
                                        "UPDATE documents SET body = zeroblob(length(body)) WHERE rowid = (SELECT MIN(rowid) FROM documents);"])

                let damaged = try await cli.run(["verify", cli.mirror.path], addMirror: false)
                #expect(damaged.status == 65)
                #expect(damaged.stdout.contains("sprite pokemon/25.png") && damaged.stdout.contains("does not match its SHA-256"))
                #expect(damaged.stdout.contains("sprites/pokemon/stray.png: not a sprite of version 1"))
                #expect(damaged.stdout.components(separatedBy: "\n").filter { $0.contains("of version 1: the store") }.count == 1)
                #expect(damaged.stderr.split(separator: "\n").count == 1)
            }
        }
    }
}
