import Foundation
import Testing
@testable import PokeSyncCore

/// What a killed `export --format api-data` leaves beside `--out` is removed by the next
/// one, which says so; a live export's folder is not; and a name whose alias would land on
/// a file the export writes is left out and reported, never failing the export.
@Suite("api-data export: leftovers and colliding names")
struct ApiDataExportLeftoverTests {
    /// A partial folder and a set-aside earlier export, as `kill -9` leaves them, go; a
    /// partial folder another export holds (its lock) stays.
    @Test func theNextExportRemovesWhatAKilledOneLeft() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = try await ApiDataAliasTests.mirror(scratch)
            let out = scratch.appendingPathComponent("gz1")
            let first = try await cli.run(["export", "--format", "api-data", "--out", out.path, "--gzip"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(!first.stdout.contains("removed"), "\(first.stdout)")

            // What kill -9 leaves: a partial build, and the export it had set aside.
            let partial = scratch.appendingPathComponent(".gz1.partial-1A2B3C4D")
            try FileManager.default.createDirectory(at: partial.appendingPathComponent("api/v2/pokemon/1"), withIntermediateDirectories: true)
            try Data(repeating: 7, count: 100_000).write(to: partial.appendingPathComponent("api/v2/pokemon/1/index.json"))
            let previous = scratch.appendingPathComponent(".gz1.previous-5E6F7A8B")
            try FileManager.default.copyItem(at: out, to: previous)
            // A live export's folder: locked, as an export in progress holds its own.
            let live = scratch.appendingPathComponent(".gz1.partial-99999999")
            try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
            let lock = try #require(ApiDataExporter.lockBuildingFolder(live))
            defer { close(lock) }
            // Not an export's: another name, and a file of the user's with the pattern.
            let someoneElses = scratch.appendingPathComponent(".gz1.partial-notours")
            try FileManager.default.createDirectory(at: someoneElses, withIntermediateDirectories: true)

            let second = try await cli.run(["export", "--format", "api-data", "--out", out.path, "--gzip"])
            #expect(second.status == 0, "\(second.stderr)")
            let removed = second.stdout.split(separator: "\n").filter { $0.hasPrefix("removed ") }
            #expect(removed.count == 2, "\(second.stdout)")
            #expect(removed.contains { $0.contains(".gz1.partial-1A2B3C4D") && $0.contains("0.1 MB") }, "\(second.stdout)")
            #expect(removed.contains { $0.contains(".gz1.previous-5E6F7A8B") }, "\(second.stdout)")
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path))
            #expect(!left.contains(partial.lastPathComponent) && !left.contains(previous.lastPathComponent), "\(left)")
            #expect(left.contains(live.lastPathComponent) && left.contains(someoneElses.lastPathComponent), "\(left)")

            let third = try await cli.run(["export", "--format", "api-data", "--out", out.path, "--gzip"])
            #expect(third.status == 0 && !third.stdout.contains("removed "), "\(third.stdout)")
        }
    }

    /// Items named `index.json.gz` (any case) and a name whose alias folder would be a
    /// `.gz` the export writes: left out, reported, the export whole and successful.
    @Test func namesThatWouldCollideAreLeftOut() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.copyItem(at: ApiDataAliasTests.whole2026, to: source)
            try ApiDataAliasTests.rename("item", 1, to: "index.json.gz", in: source)
            try ApiDataAliasTests.rename("berry", 1, to: "INDEX.JSON.GZ", in: source)
            let cli = try await ApiDataAliasTests.mirror(scratch, from: source)
            let tree = scratch.appendingPathComponent("data")
            let export = try await cli.run(["export", "--format", "api-data", "--out", tree.path, "--base-url",
                                      ApiDataAliasTests.base, "--gzip"])
            #expect(export.status == 0, "\(export.stderr)")
            #expect(export.stderr.contains("pokesync: item/1: no name alias for \"index.json.gz\""), "\(export.stderr)")
            #expect(export.stderr.contains("pokesync: berry/1: no name alias for \"INDEX.JSON.GZ\""), "\(export.stderr)")
            var isFolder: ObjCBool = true
            let list = tree.appendingPathComponent("api/v2/item/index.json.gz")
            #expect(FileManager.default.fileExists(atPath: list.path, isDirectory: &isFolder) && !isFolder.boolValue)
            #expect(FileManager.default.fileExists(atPath: tree.appendingPathComponent("api/v2/item/1/index.json.gz").path))
        }
    }

    /// The plan's own check: an alias whose folder is a file the export writes goes.
    @Test func anAliasOverAWrittenFileIsLeftOut() throws {
        var plan = ApiDataAliases(documents: [])
        plan.paths = ["item/1/index.json": ["item/index.json.gz/index.json"], "item/2/index.json": ["item/fine/index.json"]]
        plan.leaveOutCollisions(with: ["item/1/index.json", "item/2/index.json", "item/index.json"], gzip: true)
        #expect(plan.paths == ["item/2/index.json": ["item/fine/index.json"]])
        #expect(plan.notes.count == 1 && plan.notes[0].contains("item/index.json.gz/index.json"), "\(plan.notes)")
        var plain = ApiDataAliases(documents: [])
        plain.paths = ["item/2/index.json": ["item/fine/index.json"]]
        plain.leaveOutCollisions(with: ["item/2/index.json", "item/index.json"], gzip: false)
        #expect(plain.paths == ["item/2/index.json": ["item/fine/index.json"]] && plain.notes.isEmpty)
    }
}
