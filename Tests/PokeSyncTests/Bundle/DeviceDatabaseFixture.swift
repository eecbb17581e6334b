import Foundation
import PokedexReader
import PokeSQLite
import Testing
@testable import PokeSyncCore

/// A mirror of an api-data sample (crawled by the real binary) and helpers to read what
/// the device database builder made of it.
struct DeviceDatabaseFixture {
    let scratch: URL
    let cli: PokesyncCLI
    let store: Store

    /// Crawls `source` (default: the 2026 sample) with `front_default` sprites from a
    /// clone folder of tiny PNGs, so that bundled sprites get paths.
    init(scratch: URL, source: URL = TestPaths.sample2026) async throws {
        self.scratch = scratch
        let clone = scratch.appendingPathComponent("clone/sprites/pokemon")
        try FileManager.default.createDirectory(at: clone, withIntermediateDirectories: true)
        let png = ImageCheck.pngSignature + [0, 0, 0, 0] + Array("IDAT".utf8) + [0, 0, 0, 0] + ImageCheck.pngEnd
        for id in try FileManager.default.contentsOfDirectory(atPath: source.appendingPathComponent("api/v2/pokemon").path)
        where Int(id) != nil {
            try Data(png + Array(id.utf8)).write(to: clone.appendingPathComponent("\(id).png"))
        }
        cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
        let full = try await cli.run(["full", "--source", source.path, "--sprite-source",
                                scratch.appendingPathComponent("clone").path, "--sprites", "default"])
        try #require(full.status == 0, "\(full.stderr)")
        store = try Store(layout: MirrorLayout(root: cli.mirror), create: false, readOnly: true)
    }

    /// Builds version 1 into `name` in the scratch folder. The samples are reference-closed
    /// (Tests/Fixtures/README.md), so a dangling reference is refused, as `export` does,
    /// unless told otherwise.
    func build(_ name: String = "pokedex.sqlite", profile: BundleProfile = BundleProfile(),
               references: ReferenceCheck.Policy = .refuse) throws -> (URL, DeviceDatabaseInfo) {
        let file = scratch.appendingPathComponent(name)
        let info = try DeviceDatabaseBuilder(store: store).build(version: 1, lineage: "test-lineage", profile: profile,
                                                                 into: file, references: references)
        return (file, info)
    }

    /// A sample document as JSON.
    static func json(_ kind: String, _ id: Int, in sample: URL = TestPaths.sample2026) throws -> [String: Any] {
        let data = try Data(contentsOf: TestPaths.document(in: sample, kind: kind, id: id))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

