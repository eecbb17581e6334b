import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import PokeSyncCore

/// A `Content-Encoding: gzip` answer is refused, and the refusal must come at once: the
/// a red team found an index.json bomb of 16 GiB (16 MB on the wire) answered
/// after 50 s at 530 MB: a cancel queued for every decoded chunk and the caller held
/// until libcurl had decoded it all.
@Suite("Encoding bombs", .serialized)
struct EncodingBombTests {
    @Test("an index.json gzip bomb (2 GiB decoded, 2 MB on the wire) is 69 at once, in bounded memory")
    func indexBombRefusedAtOnce() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let cli = PokesyncCLI(mirror: root)
            #expect(try await cli.run(["install", world.device.path, "--from", world.bundles(1).path], addMirror: false).status == 0)
            let server = try BundleServer.start(serving: world.bundles(2))
            defer { server.stop() }
            try server.setRules(["/index.json": ["gzip_bomb": 2 << 30]])
            // The server makes the bomb ahead (seconds of zlib), so that only the client is timed.
            let warm = try #require(URL(string: "http://127.0.0.1:\(server.port)/__warm?gzip_bomb=\(2 << 30)"))
            _ = try await URLSession.shared.data(from: warm)
            let start = Date()
            let run = try await Hardening.run(cli, ["install", world.device.path, "--from", server.indexURL.absoluteString], limit: 120)
            let seconds = Date().timeIntervalSince(start)
            #expect(run.result.status == 69 && run.result.stderr.contains("Content-Encoding gzip"), "\(run.result.stderr)")
            // Before: 8.5 s and 95 MB for this one (17 s and 161 MB at 4 GiB); now 0.05 s.
            #expect(seconds < 4, "refused after \(seconds) s")
            #expect(run.peakKB < 100_000, "peak RSS \(run.peakKB) kB")
        }
    }
}
