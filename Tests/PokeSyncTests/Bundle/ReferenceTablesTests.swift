import Foundation
import PokeSQLite
import PokedexReader
import Testing
@testable import PokeSyncCore

/// The device database's reference tables (<doc:PokedexReader/DeviceDatabase#Reference-tables>: type*, ability*, move*, stat*,
/// version*, language*), checked against the JSON by a separate implementation
/// (Tests/Support/reference_tables.py), and carried by deltas by the entity rule.
@Suite("Reference tables", .serialized)
struct ReferenceTablesTests {
    @Test func theTablesAreExactlyWhatTheJSONSaysInEveryLanguageOrTheProfiles() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let (all, info) = try fixture.build()
            let check = try await runPython("reference_tables.py", ["check", "--source", TestPaths.sample2026.path, "--db", all.path])
            #expect(check.hasPrefix("ok "), "\(check)")
            #expect(info.rowCounts["type"] == 21 && info.rowCounts["stat"] == 9 && info.rowCounts["language"] == 14)
            #expect((info.rowCounts["type_efficacy"] ?? 0) > 100 && (info.rowCounts["move_text"] ?? 0) > 500)
            #expect(try await runPython("content_digest.py", [all.path]) == info.contentDigest.hex)

            let (some, _) = try fixture.build("some.sqlite", profile: BundleProfile(languages: ["ko", "fr"]))
            let kept = try await runPython("reference_tables.py", ["check", "--source", TestPaths.sample2026.path, "--db", some.path,
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

    /// `move_text` is a view over texts shared across moves: the plain SQL of a delta
    /// (delete an entity's rows, insert rows) keeps a text while another move uses it
    /// and drops it with its last user.
    @Test func sharedMoveTextsSurviveTheDeltaSQL() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let (file, _) = try fixture.build()
            let database = try Database(path: file.path)
            func rows(_ move: Int) throws -> [String] {
                try database.rows("SELECT language, short_effect, flavor_text FROM move_text WHERE move_id = ? ORDER BY language",
                                  [.integer(Int64(move))]) { "\($0.text(0))|\($0.optionalText(1) ?? "-")|\($0.optionalText(2) ?? "-")" }
            }
            let bodies = try database.integer("SELECT COUNT(*) FROM move_text_body") ?? 0
            let thunderbolt = try rows(85)
            #expect(thunderbolt.count > 5 && thunderbolt.contains { $0.hasPrefix("ja|") && !$0.contains("\n") })
            // A new move with thunderbolt's texts stores no new text.
            try database.execute("INSERT INTO move_text SELECT 99999, language, short_effect, flavor_text FROM move_text WHERE move_id = 85")
            #expect(try rows(99999) == thunderbolt)
            #expect(try database.integer("SELECT COUNT(*) FROM move_text_body") == bodies)
            // Thunderbolt removed (as a delta does): the texts stay for the other move.
            try database.execute("DELETE FROM move_text WHERE move_id = 85")
            #expect(try rows(85).isEmpty && rows(99999) == thunderbolt)
            #expect(try database.integer("SELECT COUNT(*) FROM move_text_body") == bodies)
            // Thunderbolt back; then the other move gone: only its own texts went with it.
            try database.execute("INSERT INTO move_text SELECT 85, language, short_effect, flavor_text FROM move_text WHERE move_id = 99999")
            try database.execute("DELETE FROM move_text WHERE move_id = 99999")
            #expect(try rows(85) == thunderbolt && rows(99999).isEmpty)
            #expect(try database.integer("SELECT COUNT(*) FROM move_text_body") == bodies)
            try database.execute("DELETE FROM move_text WHERE move_id = 85")
            #expect(try database.integer("SELECT COUNT(*) FROM move_text_body") ?? 0 < bodies)
            #expect(try database.integer("""
                SELECT COUNT(*) FROM move_text_body b WHERE NOT EXISTS
                    (SELECT 1 FROM move_text_link l WHERE b.id IN (l.short_effect_id, l.flavor_text_id))
                """) == 0)
        }
    }

    @Test func aTypeRenamedInKoreanReachesADeviceAsASmallDelta() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let device = scratch.appendingPathComponent("device")
            let bundles = cli.mirror.appendingPathComponent("bundles")
            #expect(try await cli.run(["full", "--source", source.path, "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)
            #expect(try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false).status == 0)

            // Upstream renames the electric type in Korean.
            let file = TestPaths.document(in: source, kind: "type", id: 13)
            let text = try String(contentsOf: file, encoding: .utf8)
            let escaped = "\\uc804\\uae30"  // 전기, as the 2026 snapshot escapes it
            #expect(text.contains(escaped))
            try text.replacingOccurrences(of: escaped, with: "\\uc804\\uae30\\ud0c0\\uc785").write(to: file, atomically: true, encoding: .utf8)
            let sync = try await cli.run(["sync", "--source", source.path, "--sprites", "none"])
            #expect(sync.status == 0 && sync.stdout.contains("type +0 -0 ~1"), "\(sync.stdout) \(sync.stderr)")
            #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)

            let delta = bundles.appendingPathComponent("pokedex-1-2.delta.tar.gz")
            let full = bundles.appendingPathComponent("pokedex-2.tar.gz")
            let deltaSize = try #require(try FileManager.default.attributesOfItem(atPath: delta.path)[.size] as? Int)
            let fullSize = try #require(try FileManager.default.attributesOfItem(atPath: full.path)[.size] as? Int)
            #expect(deltaSize * 10 < fullSize, "delta \(deltaSize) B, full \(fullSize) B")

            // The delta holds the type entity 13 and nothing else.
            let unpacked = scratch.appendingPathComponent("delta")
            try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
            try await runTool("tar", ["xzf", delta.path, "-C", unpacked.path])
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

            let update = try await cli.run(["install", device.path, "--from", bundles.path], addMirror: false)
            #expect(update.status == 0 && update.stdout.contains("delta from 1"), "\(update.stdout) \(update.stderr)")
            let installed = try Database(path: device.appendingPathComponent("current/pokedex.sqlite").path, mode: .immutable)
            #expect(try installed.row("SELECT name FROM type_name WHERE type_id = 13 AND language = 'ko'", []) { $0.text(0) }
                    == "전기타입")
            #expect(try installed.integer("SELECT COUNT(*) FROM type_efficacy WHERE attacking_type_id = 13") == 6)
        }
    }
}
