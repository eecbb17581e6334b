import PokeArchive
@testable import PokeSyncCore
import Testing

/// The API's shape as export and serve both take it from ``APIShape``: which kinds a
/// version lists, the root's endpoints, a list's order and its URLs.
@Suite("the API's shape")
struct APIShapeTests {
    static func document(_ kind: ResourceKind, _ id: Int, _ name: String?, position: Int?) -> VersionDocument {
        VersionDocument(kind: kind, id: id, name: name, hash: SHA256.hash(Array("\(kind)\(id)".utf8)), position: position)
    }

    @Test func theRootNamesListedKindsAndMetaNeverEncounters() {
        let berry = ResourceKind(rawValue: "berry")
        // A kind mirrored with an empty list is still a kind of the version.
        let kinds = APIShape.kinds(holding: [.pokemon, .pokemonEncounters, .meta], mirrored: [berry, .pokemon])
        #expect(kinds == [.pokemon, .pokemonEncounters, .meta, berry])
        #expect(APIShape.endpoints(kinds).map(\.apiName) == ["berry", "meta", "pokemon"])
        #expect(APIShape.endpoints([ResourceKind.pokemon, .pokemonEncounters]) == [.pokemon])
        #expect(ResourceKind.pokemon.endpointPath == "/api/v2/pokemon/")
        #expect(ResourceKind.meta.endpointPath == ResourceKind.meta.documentPath(id: 0))
    }

    @Test func aListIsInTheSourcesOrderThenById() {
        let documents = [Self.document(.pokemon, 3, "c", position: 0), Self.document(.pokemon, 1, "a", position: 2),
                         Self.document(.pokemon, 2, nil, position: 2), Self.document(.pokemon, 9, "z", position: nil)]
        let entries = APIShape.listEntries(.pokemon, documents: documents)
        #expect(entries.map(\.document.id) == [3, 1, 2, 9])
        #expect(entries.map(\.path) == ["/api/v2/pokemon/3/", "/api/v2/pokemon/1/", "/api/v2/pokemon/2/", "/api/v2/pokemon/9/"])
    }

    @Test func namesAreFoundByTheirASCIIFoldedKeyTheLaterOfTwoWins() {
        #expect(NameLookup.key("PiKaChU") == "pikachu")
        #expect(NameLookup.key("Flabébé") == "flabébé")
        #expect(NameLookup.key("\u{212A}") == "\u{212A}")
        #expect(NameLookup.index(["a", nil, "A", "b"]) == ["a": 2, "b": 3])
        #expect(ResourceKind.pokemonEncounters.documentPath(id: 25) == "/api/v2/pokemon/25/encounters")
        #expect(ResourceKind.pokemonEncounters.apiDataFile(key: "pikachu") == "pokemon/pikachu/encounters/index.json")
    }
}
