import Foundation
import PokeSQLite
import PokedexReader
import Testing
@testable import PokeSyncCore

/// The device database as a file and as a contract: references, languages, search,
/// determinism, journal mode and content_digest.
@Suite("Device database file")
struct DeviceDatabaseFileTests {
    @Test func danglingReferencesAreRefused() async throws {
        try await withTemporaryDirectory { scratch in
            // The samples are reference-closed: the 2026 one builds under the export's check.
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let (_, info) = try fixture.build(references: .refuse)
            #expect(info.danglingReferences.isEmpty)

            // Without species 172 (pichu) and 491 (darkrai): a pokemon's species, two pokedex
            // entries, two chain roots and one evolution step dangle.
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.copyItem(at: TestPaths.sample2026, to: source)
            for id in [172, 491] {
                try FileManager.default.removeItem(at: source.appendingPathComponent("api/v2/pokemon-species/\(id)"))
                try Self.dropFromList(source.appendingPathComponent("api/v2/pokemon-species/index.json"), id: id)
            }
            let broken = try await DeviceDatabaseFixture(scratch: scratch.appendingPathComponent("broken"), source: source)
            // A pokemon whose species is missing from the version is named first.
            let refused = try #require(throws: ExportError.self) { try broken.build(references: .refuse) }
            #expect(refused.description.hasPrefix("pokemon 10312 (darkrai-mega) names species 491, which version 1 does not hold"))
            #expect(refused.description.contains("5 more dangling references"))
            #expect(refused.code == .deviceData && refused.exitStatus == .dataError)
            #expect(!FileManager.default.fileExists(atPath: broken.scratch.appendingPathComponent("pokedex.sqlite").path))

            // Kept (what a cut of the data may want), they are all counted, in table then key order.
            let (_, kept) = try broken.build("kept.sqlite", references: .keep)
            let holds = ", which version 1 does not hold"
            #expect(kept.danglingReferences == [
                "pokemon 10312 (darkrai-mega) names species 491" + holds,
                "pokedex 17 (original-melemele) entry 24 names species 172" + holds,
                "pokedex 35 (hyperspace) entry 125 names species 491" + holds,
                "evolution chain 10 names species 172" + holds,    // the root of pikachu's chain
                "evolution chain 252 names species 491" + holds,   // darkrai's own chain
                "evolution chain 10 names species 172" + holds,    // the step pichu -> pikachu
            ])
        }
    }

    @Test func languagesKeepOnlyThoseAsked() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let profile = BundleProfile(languages: try BundleProfile.parseLanguages("KO"))
            let (file, info) = try fixture.build(profile: profile)
            #expect(info.languages == ["en", "ko"])
            let database = try Database(path: file.path, mode: .readOnly)
            let languages = try database.rows("""
                SELECT language FROM species_name UNION SELECT language FROM species_flavor_text
                UNION SELECT language FROM pokedex_description
                """) { $0.text(0) }
            #expect(Set(languages) == ["en", "ko"])
            #expect(try database.row("SELECT value FROM meta WHERE key = 'profile'", []) { $0.text(0) }
                    == #"{"languages":["en","ko"],"sprites":"default"}"#)
            // Case-insensitive, stored as the API spells it.
            let (kana, _) = try fixture.build("kana.sqlite", profile: BundleProfile(languages: ["JA-HRKT"]))
            let kanaLanguages = try Database(path: kana.path, mode: .readOnly).rows("SELECT DISTINCT language FROM species_name ORDER BY 1") { $0.text(0) }
            #expect(kanaLanguages == ["en", "ja-hrkt"])

            let error = try #require(throws: RequestError.self) { try fixture.build("x.sqlite", profile: BundleProfile(languages: ["en", "xx"])) }
            #expect(error.description.contains("xx") && error.description.contains("ja-hrkt, ja-roma, ko"))
            #expect(throws: RequestError.self) { try BundleProfile.parseLanguages("en,,ko") }
            #expect(try BundleProfile.parseLanguages("all") == nil)
        }
    }

    /// The table holds a pokemon's own names; its types (slugs and names in every
    /// language) are added by the reader from `pokemon_type` and `type_name`.
    @Test func searchIndexHoldsFoldedNamesAndTypes() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let (file, _) = try fixture.build()
            let database = try Database(path: file.path)
            let texts = Set(try database.rows("SELECT text FROM pokemon_search WHERE pokemon_id = 25") { $0.text(0) })
            #expect(texts == ["pikachu", "피카츄", SearchFolding.fold("ピカチュウ"), "皮卡丘"])
            let pokedex = try Pokedex(databaseAt: file)
            for type in ["electric", "électrik", "전기", "でんき"] {
                #expect(try pokedex.search(type).contains { $0.pokemon.id == 25 && $0.rank == .exact }, "\(type)")
            }
            // Forms are found by their species' names too.
            #expect(try database.integer("SELECT COUNT(*) FROM pokemon_search WHERE pokemon_id = 10199 AND text = 'pikachu'") == 1)
            // Rebuilt from the other tables alone, it is the same.
            let before = try database.rows("SELECT pokemon_id, text FROM pokemon_search") { "\($0.int(0)) \($0.text(1))" }
            try database.execute("DELETE FROM pokemon_search")
            try DeviceSearchIndex.rebuild(database)
            #expect(try database.rows("SELECT pokemon_id, text FROM pokemon_search") { "\($0.int(0)) \($0.text(1))" } == before)
        }
    }

    @Test func fileIsDeterministicSoundAndDigested() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let (first, info) = try fixture.build("first.sqlite")
            let (second, again) = try fixture.build("second.sqlite")
            #expect(info == again)
            _ = try await runTool("/usr/bin/cmp", [first.path, second.path])
            #expect(try await runTool("/usr/bin/sqlite3", [first.path, "PRAGMA integrity_check;"]) == "ok")
            #expect(try await runTool("/usr/bin/sqlite3", [first.path, "PRAGMA journal_mode;"]) == "delete")
            #expect(try await runTool("/usr/bin/sqlite3", [first.path, "PRAGMA page_size;"]) == "4096")
            #expect(try await runTool("/usr/bin/sqlite3", [first.path, "PRAGMA freelist_count;"]) == "0")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".") }
            #expect(leftovers.isEmpty, "\(leftovers)")

            let python = try await runPython("content_digest.py", [first.path])
            let database = try Database(path: first.path, mode: .immutable)
            let meta = Dictionary(uniqueKeysWithValues: try database.rows("SELECT key, value FROM meta") { ($0.text(0), $0.text(1)) })
            #expect(python == info.contentDigest.hex)
            #expect(try ContentDigest.compute(database).hex == python)
            #expect(meta["content_digest"] == python)
            let version = try #require(try fixture.store.version(1))
            #expect(meta["schema_version"] == String(DeviceSchema.version) && meta["version"] == "1" && meta["lineage"] == "test-lineage")
            #expect(meta["created_at"] == version.createdAt && meta["source"] == "api-data folder")
            #expect(meta["profile"] == #"{"languages":"all","sprites":"default"}"#)
            // The sample's documents (Tests/Fixtures/README.md): 17 pokemon, 37 species, 13 chains, 3 pokedexes.
            #expect(info.rowCounts["pokemon"] == 17 && info.rowCounts["species"] == 37 && info.rowCounts["evolution_chain"] == 13)
            #expect(info.rowCounts["pokedex"] == 3 && info.rowCounts["pokedex_entry"] == 7)

            // Another profile gives another database, and another digest.
            let (_, english) = try fixture.build("en.sqlite", profile: BundleProfile(languages: ["en"]))
            #expect(english.contentDigest != info.contentDigest && english.size < info.size)
        }
    }

    /// Removes one entry from an api-data list, keeping `count` right.
    static func dropFromList(_ list: URL, id: Int) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: list)) as? [String: Any])
        let results = (object["results"] as! [[String: Any]]).filter { ListedResource.id(fromURL: $0["url"] as! String) != id }
        object["results"] = results
        object["count"] = results.count
        try JSONSerialization.data(withJSONObject: object).write(to: list)
    }
}
