import Foundation
import Testing

/// `pokesync show --language`, `show --json`'s `type_defense` and `search --json --language`
/// on a device installed from a real bundle of the 2026 sample.
@Suite("show and search in the device's language")
struct LocalizedCLITests {
    @Test func showInKoreanNamesTypesAbilitiesStatsAndChartsTheTypes() async throws {
        let device = try await SampleBundles.device(sprites: "default")
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let card = try await cli.run(["show", "pikachu", "--bundle", device.path, "--language", "ko"], addMirror: false)
            #expect(card.status == 0, "\(card.stderr)")
            for text in ["피카츄", "전기", "정전기", "스피드", "실드", "damage taken", "땅"] {
                #expect(card.stdout.contains(text), "\(text) in\n\(card.stdout)")
            }
            #expect(card.stdout.contains("2x    땅"))

            let json = try await cli.run(["show", "charizard-mega-x", "--bundle", device.path, "--json", "--language", "fr"],
                                   addMirror: false)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let defense = try #require(object["type_defense"] as? [String: Double])
            // Fire and dragon: ground, rock and dragon 2x; fire and grass 1/4x; nothing 0.
            #expect(defense.count == 18)
            #expect(defense["ground"] == 2 && defense["rock"] == 2 && defense["dragon"] == 2)
            #expect(defense["fire"] == 0.25 && defense["grass"] == 0.25 && defense["water"] == 1)
            #expect(object["localized_name"] as? String == "Dracaufeu")
            #expect((object["type_names"] as? [String: String])?["dragon"] == "Dragon")
            #expect((object["type_names"] as? [String: String])?["fire"] == "Feu")
            #expect(object["types"] as? [String] == ["fire", "dragon"])

            let search = try await cli.run(["search", "feu", "drache", "--bundle", device.path, "--json", "--language", "fr"],
                                     addMirror: false)
            let hits = try #require(try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [[String: Any]])
            #expect(hits.map { $0["id"] as? Int } == [643, 776, 1020, 10034])
            #expect(hits.last?["localized_name"] as? String == "Dracaufeu")
            #expect(hits.first?["name"] as? String == "reshiram")
        }
    }
}
