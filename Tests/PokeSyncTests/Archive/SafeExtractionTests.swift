import Foundation
import PokeArchive
import PokeSyncCore
import Testing

/// Hostile and damaged archives, crafted by Tests/Support/craft_tar.py: each is refused
/// with a one-line error, nothing is written outside the target, and the target folder is
/// not left behind.
@Suite("safe extraction", .serialized)
struct SafeExtractionTests {
    static let limits = TarLimits(maxUnpackedBytes: 10 << 20, maxEntryCount: 1000, maxCompressedBytes: 10 << 20)

    /// What a refusal must look like.
    enum Expected: Sendable, CustomStringConvertible {
        case unsafe(String), corrupt(String), truncated(String?), overLimit(String)
        var description: String {
            switch self {
            case .unsafe(let text): "unsafe: \(text)"
            case .corrupt(let text): "corrupt: \(text)"
            case .truncated(let entry): "truncated: \(entry ?? "-")"
            case .overLimit(let text): "over a limit: \(text)"
            }
        }
    }

    static let hostile: [(String, Expected)] = [
        ("dotdot", .unsafe(#"entry "../escaped.txt": a name that leaves the folder"#)),
        ("dotdot-inner", .unsafe(#"entry "a/../../escaped.txt": a name that leaves the folder"#)),
        ("absolute", .unsafe(#"entry "/tmp/pokesync-absolute.txt": an absolute name"#)),
        ("symlink", .unsafe(#"entry "link": a symbolic link, which extraction refuses"#)),
        ("hardlink", .unsafe(#"entry "b.txt": a hard link, which extraction refuses"#)),
        ("device", .unsafe(#"entry "null": a character device, which extraction refuses"#)),
        ("fifo", .unsafe(#"entry "pipe": a FIFO, which extraction refuses"#)),
        ("pax", .unsafe("a pax extended header, which extraction refuses")),
        ("gnu-longname", .unsafe("a GNU long-name record, which extraction refuses")),
        ("duplicate", .unsafe(#"entry "a.txt": a duplicate name"#)),
        ("file-then-dir", .unsafe(#"entry "a/b": a name inside "a", which is a file"#)),
        ("dir-then-file", .unsafe(#"entry "a": a file with the name of a folder"#)),
        ("dot", .unsafe(#"entry "./a.txt": a "." component in the name"#)),
        ("empty-component", .unsafe(#"entry "a//b.txt": an empty component in the name"#)),
        ("backslash", .unsafe(#"entry "a\\..\\..\\b.txt": a backslash in the name"#)),
        ("nul", .unsafe(#"entry "ok.txt": a NUL byte in the name"#)),
        ("v7", .corrupt("the header at byte 0 is not a ustar or GNU tar header")),
        ("bad-checksum", .corrupt("the header at byte 0 has a wrong checksum")),
        ("bad-octal", .corrupt(#"entry "a.txt": corrupt archive: the size field is not an octal number"#)),
        ("size-lie", .truncated("liar.bin")),
        ("huge-size", .overLimit(#"entry "huge.bin": 1099511627776 bytes take the archive past its cap of 10485760 unpacked bytes"#)),
        ("huge-octal", .overLimit(#"entry "big.bin": 8589934591 bytes take the archive past its cap"#)),
    ]

    @Test("hostile archives are refused before anything is written", arguments: hostile)
    func hostileArchive(kind: String, expected: Expected) async throws {
        try await withTemporaryDirectory { folder in
            let path = try await TarTestSupport.craft(kind, in: folder)
            try expectRefusal(path, in: folder, expected)
            #expect(!FileManager.default.fileExists(atPath: "/tmp/pokesync-absolute.txt"))
        }
    }

    @Test("a truncated archive is refused as truncated, wherever it is cut")
    func truncatedArchive() async throws {
        try await withTemporaryDirectory { folder in
            let (path, _) = try TarTests.writeSample(in: folder)
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            let cutPath = folder.appendingPathComponent("cut.tar.gz").path
            for cut in [10, whole.count / 3, whole.count / 2, whole.count - 9] {
                try whole.prefix(cut).write(to: URL(fileURLWithPath: cutPath))
                let error = try refusal(cutPath, in: folder)
                guard case .truncated = error else {
                    Issue.record("cut at \(cut): \(error)")
                    continue
                }
            }
            // Without the end-of-archive marker (the gzip stream itself complete).
            let tar = try await TarTestSupport.runChecked("gzip", ["-dc", path])
            let firstEntries = tar.prefix(512 + 512 * ((45 + 511) / 512))  // manifest.json, 45 bytes
            let noEnd = folder.appendingPathComponent("no-end.tar").path
            try firstEntries.write(to: URL(fileURLWithPath: noEnd))
            _ = try await TarTestSupport.runChecked("gzip", ["-n", noEnd])
            #expect(throws: TarError.truncated(archive: noEnd + ".gz", entry: nil)) {
                try TarArchive(path: noEnd + ".gz", limits: Self.limits).entries()
            }
        }
    }

    @Test("a tar bomb of many tiny files stops at the entry cap")
    func manyFiles() async throws {
        try await withTemporaryDirectory { folder in
            let path = try await TarTestSupport.craft("many-files", in: folder, count: 20_000)
            let limits = TarLimits(maxUnpackedBytes: 1 << 20, maxEntryCount: 10_000, maxCompressedBytes: 100 << 20)
            let start = Date()
            try expectRefusal(path, in: folder, .overLimit(#"entry "f0010000": more than 10000 entries, the cap"#), limits: limits)
            print("many-files: refused 20000 entries at the 10000 cap in \(Date().timeIntervalSince(start)) s")
            // Within the cap, the same kind of archive extracts.
            let small = try await TarTestSupport.craft("many-files", in: folder, count: 1_000)
            let entries = try SafeExtractor(limits: limits, synchronizes: false)
                .extract(archive: small, to: folder.appendingPathComponent("small").path)
            #expect(entries.count == 1_000)
        }
    }

    @Test("a gzip bomb past the end marker stops at the padding cap, in little memory")
    func gzipBombTail() async throws {
        try await withTemporaryDirectory { folder in
            let path = try await TarTestSupport.craft("zeros-tail", in: folder, count: 1024)  // 1 GiB of zeros
            let before = TarTestSupport.peakResidentBytes()
            try expectRefusal(path, in: folder,
                              .overLimit("more than 1048576 bytes of padding after the end-of-archive marker"))
            if let before, let after = TarTestSupport.peakResidentBytes() {
                #expect(after - before < 100 << 20, "peak RSS grew by \(after - before) bytes")
            }
        }
    }

    @Test("a gzip bomb as content is refused by its size, and listed in bounded memory when allowed",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
    func gzipBombContent() async throws {
        try await withTemporaryDirectory { folder in
            let path = try await TarTestSupport.craft("zeros-content", in: folder, count: 1024)  // 1 GiB file
            let compressed = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            try expectRefusal(path, in: folder, .overLimit(#"entry "zeros.bin": 1073741824 bytes take the archive past its cap"#))

            // With caps that allow it, reading streams through the whole gigabyte.
            let generous = TarLimits(maxUnpackedBytes: 2 << 30, maxEntryCount: 10, maxCompressedBytes: 2 << 20)
            let before = try #require(TarTestSupport.peakResidentBytes())
            let start = Date()
            let entries = try TarArchive(path: path, limits: generous).entries()
            let seconds = Date().timeIntervalSince(start)
            let growth = try #require(TarTestSupport.peakResidentBytes()) - before
            #expect(entries == [TarEntry(name: "zeros.bin", kind: .file, size: 1 << 30)])
            #expect(growth < 100 << 20, "peak RSS grew by \(growth) bytes")
            print("gzip bomb: \(compressed) compressed bytes, 1 GiB read in \(seconds) s, peak RSS growth \(growth >> 20) MiB")
        }
    }

    @Test("the compressed and unpacked caps hold for a valid archive")
    func capsOnValidArchive() throws {
        try withTemporaryDirectory { folder in
            let (path, _) = try TarTests.writeSample(in: folder)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let smallCompressed = TarLimits(maxUnpackedBytes: 10 << 20, maxEntryCount: 100, maxCompressedBytes: size - 1)
            try expectRefusal(path, in: folder, .overLimit("the file is \(size) bytes, more than the cap of \(size - 1)"),
                              limits: smallCompressed)
            let smallUnpacked = TarLimits(maxUnpackedBytes: 1_000_000, maxEntryCount: 100, maxCompressedBytes: 10 << 20)
            try expectRefusal(path, in: folder,
                              .overLimit(#"entry "pokedex.sqlite": 3000000 bytes take the archive past its cap of 1000000 unpacked bytes"#),
                              limits: smallUnpacked)
            let fewEntries = TarLimits(maxUnpackedBytes: 10 << 20, maxEntryCount: 6, maxCompressedBytes: 10 << 20)
            try expectRefusal(path, in: folder, .overLimit("more than 6 entries, the cap"), limits: fewEntries)
        }
    }

    @Test("the destination must be new and its parent must exist")
    func destination() throws {
        try withTemporaryDirectory { folder in
            let (path, _) = try TarTests.writeSample(in: folder)
            let existing = folder.appendingPathComponent("existing")
            try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: false)
            try Data("keep".utf8).write(to: existing.appendingPathComponent("keep.txt"))
            #expect(throws: TarError.io(path: existing.path, operation: "extract into", reason: "it already exists")) {
                try SafeExtractor(limits: Self.limits).extract(archive: path, to: existing.path)
            }
            #expect(TarTestSupport.snapshot(existing) == ["keep.txt 4"])
            #expect(TarError.io(path: existing.path, operation: "extract into", reason: "it already exists").exitStatus == .ioError)
            let orphan = folder.appendingPathComponent("missing/out").path
            #expect(throws: TarError.io(path: orphan, operation: "create", reason: "No such file or directory")) {
                try SafeExtractor(limits: Self.limits).extract(archive: path, to: orphan)
            }
        }
    }

    // MARK: Helpers

    /// Extracts `path` into a new folder of `folder`, expects the refusal, and checks that
    /// the folder holds exactly what it held before. Listing must refuse it the same way.
    private func expectRefusal(_ path: String, in folder: URL, _ expected: Expected,
                               limits: TarLimits = SafeExtractionTests.limits,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = try refusal(path, in: folder, limits: limits, sourceLocation: sourceLocation)
        let text = error.description
        #expect(text.hasPrefix(path + ": "), "\(text)", sourceLocation: sourceLocation)
        #expect(!text.contains("\n"), sourceLocation: sourceLocation)
        #expect(error.exitStatus == .dataError, sourceLocation: sourceLocation)
        switch (expected, error) {
        case (.unsafe(let fragment), .unsafeEntry), (.corrupt(let fragment), .corrupt), (.overLimit(let fragment), .overLimit):
            #expect(text.contains(fragment), "\(text)", sourceLocation: sourceLocation)
        case (.truncated(let entry), .truncated(_, let actual)):
            #expect(entry == actual, "\(text)", sourceLocation: sourceLocation)
        default:
            Issue.record("expected \(expected), got \(text)", sourceLocation: sourceLocation)
        }
        do {
            _ = try TarArchive(path: path, limits: limits).entries()
            Issue.record("listing accepted it", sourceLocation: sourceLocation)
        } catch let listing as TarError {
            #expect(listing == error, sourceLocation: sourceLocation)
        }
    }

    /// Extracts and returns the `TarError`, checking nothing was left behind.
    private func refusal(_ path: String, in folder: URL, limits: TarLimits = SafeExtractionTests.limits,
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> TarError {
        let before = TarTestSupport.snapshot(folder)
        let target = folder.appendingPathComponent("target").path
        defer {
            #expect(!FileManager.default.fileExists(atPath: target), "the target was left behind", sourceLocation: sourceLocation)
            #expect(TarTestSupport.snapshot(folder) == before, "files changed", sourceLocation: sourceLocation)
        }
        do {
            try SafeExtractor(limits: limits).extract(archive: path, to: target)
        } catch let error as TarError {
            return error
        }
        Issue.record("extraction succeeded", sourceLocation: sourceLocation)
        throw CancellationError()
    }
}
