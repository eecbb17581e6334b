import Foundation
import PokeSQLite
import PokedexReader
import Testing
@testable import PokeSyncCore

/// The device database's reference tables (DESIGN: type*, ability*, move*, stat*,
/// version*, language*), checked against the JSON by a separate implementation
/// (Tests/Support/reference_tables.py), and carried by deltas by the entity rule.
@Suite("Reference tables", .serialized)
struct ReferenceTablesTests {
    @Test func theTablesAreExactlyWhatTheJSONSaysInEveryLanguageOrTheProfiles() throws {
        try withTemporaryDirectory { scratch in
            let fixture = try DeviceDatabaseFixture(scratch: scratch)
            let (all, info) = try fixture.build()
            let check = try runPython("reference_tables.py", ["check", "--source", TestPaths.sample2026.path, "--db", all.path])
            #expect(check.hasPrefix("ok "), "\(check)")
            #expect(info.rowCounts["type"] == 21 && info.rowCounts["stat"] == 9 && info.rowCounts["language"] == 14)
            #expect((info.rowCounts["type_efficacy"] ?? 0) > 100 && (info.rowCounts["move_text"] ?? 0) > 500)
            #expect(try runPython("content_digest.py", [all.path]) == info.contentDigest.hex)

            let (some, _) = try fixture.build("some.sqlite", profile: BundleProfile(languages: ["ko", "fr"]))
            let kept = try runPython("reference_tables.py", ["check", "--source", TestPaths.sample2026.path, "--db", some.path,
                                                             "--languages", "ko,fr"])
            #expect(kept.hasPrefix("ok "), "\(kept)")
            let database = try Database(path: some.path, mode: .immutable)
            let codes = try database.rows("SELECT DISTINCT in_language FROM language_name ORDER BY 1", []) { $0.text(0) }
            #expect(codes == ["en", "fr", "ko"])
            // Facts are not localized: every language is still described, in the kept languages.
            #expect(try database.integer("SELECT COUNT(*) FROM language") == 14)
            #expect(try database.row("SELECT name FROM type_name WHERE type_id = 13 AND language = 'ko'", []) { $0.text(0) } == "전기")
            #expect(try database.row("SELECT factor FROM type_efficacy WHERE attacking_type_id = 13 AND defending_type_id = 11",
                                     []) { $0.int(0) } == 200)
        }
    }

    @Test func aTypeRenamedInKoreanReachesADeviceAsASmallDelta() throws {
        try withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let device = scratch.appendingPathComponent("device")
            let bundles = cli.mirror.appendingPathComponent("bundles")
            #expect(try cli.run(["full", "--source", source.path, "--sprites", "none"]).status == 0)
            #expect(try cli.run(["export", "--sprites", "none"]).status == 0)
            #expect(try cli.run(["install", device.path, "--from", bundles.path], addMirror: false).status == 0)

            // Upstream renames the electric type in Korean.
            let file = TestPaths.document(in: source, kind: "type", id: 13)
            let text = try String(contentsOf: file, encoding: .utf8)
            let escaped = "\\uc804\\uae30"  // 전기, as the 2026 snapshot escapes it
            #expect(text.contains(escaped))
            try text.replacingOccurrences(of: escaped, with: "\\uc804\\uae30\\ud0c0\\uc785").write(to: file, atomically: true, encoding: .utf8)
            let sync = try cli.run(["sync", "--source", source.path, "--sprites", "none"])
            #expect(sync.status == 0 && sync.stdout.contains("type +0 -0 ~1"), "\(sync.stdout) \(sync.stderr)")
            #expect(try cli.run(["export", "--sprites", "none"]).status == 0)

            let delta = bundles.appendingPathComponent("pokedex-1-2.delta.tar.gz")
            let full = bundles.appendingPathComponent("pokedex-2.tar.gz")
            let deltaSize = try #require(try FileManager.default.attributesOfItem(atPath: delta.path)[.size] as? Int)
            let fullSize = try #require(try FileManager.default.attributesOfItem(atPath: full.path)[.size] as? Int)
            #expect(deltaSize * 10 < fullSize, "delta \(deltaSize) B, full \(fullSize) B")

            // The delta holds the type entity 13 and nothing else.
            let unpacked = scratch.appendingPathComponent("delta")
            try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
            let tar = Process()
            tar.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
            tar.arguments = ["xzf", delta.path, "-C", unpacked.path]
            try tar.run()
            tar.waitUntilExit()
            let changes = try Database(path: unpacked.appendingPathComponent("changes.sqlite").path, mode: .immutable)
            #expect(try changes.rows("SELECT entity, id FROM removed", []) { "\($0.text(0)) \($0.int(1))" } == ["type 13"])
            for table in DeviceSchema.tables where table.name != "meta" {
                let count = try changes.integer("SELECT COUNT(*) FROM \(table.quotedName)") ?? 0
                if table.entity == .type {
                    #expect(count > 0, "\(table.name)")
                } else {
                    #expect(count == 0, "\(table.name) has \(count) rows")
                }
            }

            let update = try cli.run(["install", device.path, "--from", bundles.path], addMirror: false)
            #expect(update.status == 0 && update.stdout.contains("delta from 1"), "\(update.stdout) \(update.stderr)")
            let installed = try Database(path: device.appendingPathComponent("current/pokedex.sqlite").path, mode: .immutable)
            #expect(try installed.row("SELECT name FROM type_name WHERE type_id = 13 AND language = 'ko'", []) { $0.text(0) }
                    == "전기타입")
            #expect(try installed.integer("SELECT COUNT(*) FROM type_efficacy WHERE attacking_type_id = 13") == 6)
        }
    }
}
