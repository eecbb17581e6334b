import Foundation
import Testing
@testable import PokeSyncCore

/// "Bytes on the wire" are what arrived before decoding, or said to be unknown;
/// a folder source has no wire at all.
@Suite("Bytes on the wire", .serialized)
struct WireBytesTests {
    static var documents: Int { (try? Samples.documents(TestPaths.sample2026).count) ?? 0 }
    /// One request per document and two per kind's list (a folder with an index.json each):
    /// a run that fetched documents reads its lists again at its end, to see that upstream
    /// is still the state it began from (<doc:PokeSyncCore/MirrorFolder#One-upstream-state>).
    static var requests: Int {
        let api = TestPaths.sample2026.appendingPathComponent("api/v2")
        let kinds = ((try? FileManager.default.contentsOfDirectory(atPath: api.path)) ?? []).filter {
            FileManager.default.fileExists(atPath: api.appendingPathComponent("\($0)/index.json").path)
        }
        return documents + 2 * kinds.count
    }

    @Test("gzip with Content-Length: the compressed bytes the stand-in sent")
    func compressedBodiesWithALength() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                #expect(full.status == 0, "\(full.stderr)")
                let sent = try await server.stats().bodyBytes
                let wire = String(format: "%.1f MB on the wire)", Double(sent) / 1_000_000)
                #expect(full.stdout.contains("\(Self.requests) requests, ") && full.stdout.contains(wire), "\(full.stdout) \(wire)")
                #expect(!full.stdout.contains("read from local folders"))
            }
        }
    }

    @Test("gzip chunked without Content-Length (nginx): not known, never the decoded size")
    func compressedBodiesWithoutALength() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            var options = StandInOptions(root: TestPaths.sample2026)
            options.chunkedGzip = true
            try await withStandInServer(options) { server in
                let full = try await cli.run(["full", "--source", server.baseURL.absoluteString, "--sprites", "none"])
                #expect(full.status == 0, "\(full.stderr)")
                #expect(full.stdout.contains(
                    "(on the wire: not known, \(Self.requests) compressed response(s) came without Content-Length)"),
                        "\(full.stdout)")
                #expect(!full.stdout.contains("MB on the wire"), "\(full.stdout)")
            }
        }
    }

    @Test("a folder source: bytes read from the folder, no wire")
    func folderSource() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(full.status == 0, "\(full.stderr)")
            #expect(full.stdout.contains("; 0 requests, ") && full.stdout.contains(" MB read from local folders in "), "\(full.stdout)")
            #expect(!full.stdout.contains("wire"), "\(full.stdout)")
            let status = try await cli.run(["status"])
            #expect(!status.stdout.contains("wire"), "\(status.stdout)")
        }
    }

    @Test func wireSizeOfAResponse() {
        #expect(WireSize.of(status: 200, decodedBytes: 900, contentLength: "120", contentEncoding: "gzip") == .bytes(120))
        #expect(WireSize.of(status: 200, decodedBytes: 900, contentLength: nil, contentEncoding: "gzip") == .unknown)
        #expect(WireSize.of(status: 200, decodedBytes: 900, contentLength: nil, contentEncoding: nil) == .bytes(900))
        #expect(WireSize.of(status: 200, decodedBytes: 900, contentLength: nil, contentEncoding: "Identity") == .bytes(900))
        // A 304 may name the representation's length; no body came.
        #expect(WireSize.of(status: 304, decodedBytes: 0, contentLength: "4000", contentEncoding: "gzip") == .bytes(0))

        var both = TransferBytes()
        both.add(decoded: 7_000_000, .local)
        both.add(decoded: 500_000, .bytes(100_000))
        #expect(both.description == "7.0 MB read from local folders, 0.5 MB over HTTP (0.1 MB on the wire)")
        var partly = TransferBytes()
        partly.add(decoded: 500_000, .bytes(100_000))
        partly.add(decoded: 900_000, .unknown)
        #expect(partly.description
                == "1.4 MB (on the wire: 0.1 MB for the responses that gave their size; 1 compressed response(s) came without Content-Length)")
    }
}
