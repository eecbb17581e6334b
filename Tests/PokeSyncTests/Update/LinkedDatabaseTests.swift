import Foundation
import Testing
@testable import PokeSyncCore

/// The database a delta is applied to is a copy of the installed one; when the installed
/// `pokedex.sqlite` is a link (someone's edit of the device folder), the copy must still
/// be a file of its own. A red team's break: `copyItem` copied the link, and the apply
/// wrote through it into the file outside the device folder.
@Suite("Delta on a linked database", .serialized)
struct LinkedDatabaseTests {
    @Test("a delta applied where versions/N/pokedex.sqlite is a link out of the folder writes nothing through it")
    func deltaNeverWritesThroughALink() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let cli = PokesyncCLI(mirror: root)
            #expect(try await cli.run(["install", world.device.path, "--from", world.bundles(1).path], addMirror: false).status == 0)
            let installed = world.device.appendingPathComponent("current/pokedex.sqlite").resolvingSymlinksInPath()
            let outside = root.appendingPathComponent("outside.sqlite")
            try FileManager.default.moveItem(at: installed, to: outside)
            try FileManager.default.createSymbolicLink(at: installed, withDestinationURL: outside)
            let before = try Data(contentsOf: outside)
            let run = try await cli.run(["install", world.device.path, "--from", world.bundles(2).path], addMirror: false)
            #expect(run.status == 0 && run.stdout.contains("delta from 1"), "\(run.stdout) \(run.stderr)")
            #expect(try Data(contentsOf: outside) == before, "the file outside the device folder was written")
            let rows = try UpdaterTests().currentRows(world.device)
            #expect(rows == (try UpdateFixtures.rows(world.versions[1].database)))
        }
    }
}
