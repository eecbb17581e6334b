import Foundation
import Testing

/// `export --format api-data --out DIR` never removes anything it did not write: only a
/// missing path or an earlier export of its own (the marker plus `api/`) is a target.
@Suite("Export target safety, end to end")
struct ExportTargetTests {
    /// A mirror holding version 1 of the 2025 sample, without sprites.
    static func mirror(in scratch: URL) async throws -> PokesyncCLI {
        let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
        let full = try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"])
        #expect(full.status == 0, "\(full.stderr)")
        return cli
    }

    @Test func folderOfDotEntriesIsRefusedAndKept() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(in: scratch)
            let home = scratch.appendingPathComponent("home")
            let ssh = home.appendingPathComponent(".ssh")
            try FileManager.default.createDirectory(at: ssh, withIntermediateDirectories: true)
            try Data("key\n".utf8).write(to: ssh.appendingPathComponent("id_rsa"))

            let export = try await cli.run(["export", "--format", "api-data", "--out", home.path])
            #expect(export.status == 64, "\(export.stderr)")
            #expect(export.stderr.contains(home.path) && export.stderr.split(separator: "\n").count == 1)
            #expect(try String(contentsOf: ssh.appendingPathComponent("id_rsa"), encoding: .utf8) == "key\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: home.path) == [".ssh"])
            // Nothing is left behind beside it either.
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["Mirror", "home"])
        }
    }

    @Test func emptyFolderFileAndLinkAreRefused() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(in: scratch)
            let empty = scratch.appendingPathComponent("empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let file = scratch.appendingPathComponent("file")
            try Data("x".utf8).write(to: file)
            let link = scratch.appendingPathComponent("link")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: empty)
            // An api/ folder without the marker is not known to be an export either.
            let unmarked = scratch.appendingPathComponent("unmarked")
            try FileManager.default.createDirectory(at: unmarked.appendingPathComponent("api"), withIntermediateDirectories: true)
            for target in [empty, file, link, unmarked] {
                let export = try await cli.run(["export", "--format", "api-data", "--out", target.path])
                #expect(export.status == 64, "\(target.lastPathComponent): \(export.stderr)")
                #expect(export.stderr.contains(target.path))
            }
            #expect(try String(contentsOf: file, encoding: .utf8) == "x")
            #expect(FileManager.default.fileExists(atPath: unmarked.appendingPathComponent("api").path))
        }
    }

    @Test func earlierExportIsReplacedButNotOneWithExtraFiles() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await Self.mirror(in: scratch)
            let out = scratch.appendingPathComponent("export")
            #expect(try await cli.run(["export", "--format", "api-data", "--out", out.path]).status == 0)
            let marker = out.appendingPathComponent(".pokesync-export")
            #expect(try String(contentsOf: marker, encoding: .utf8).contains("\"version\":1"))
            let again = try await cli.run(["export", "--format", "api-data", "--out", out.path])
            #expect(again.status == 0, "\(again.stderr)")
            try Samples.expectSameJSON(TestPaths.sample2025, out)
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["Mirror", "export"])

            // Once someone puts a file of their own in it, it is theirs: refused.
            try Data("notes".utf8).write(to: out.appendingPathComponent("NOTES.md"))
            let refused = try await cli.run(["export", "--format", "api-data", "--out", out.path])
            #expect(refused.status == 64, "\(refused.stderr)")
            #expect(try String(contentsOf: out.appendingPathComponent("NOTES.md"), encoding: .utf8) == "notes")
        }
    }
}
