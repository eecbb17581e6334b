import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Real HTTP against `Tests/Support/pokeapi_server.py`, so the other suites can trust it.
@Suite("Stand-in server")
struct StandInServerTests {
    let client = HTTPTestClient()

    @Test("Lists page by limit and offset; limit=0 means 20; a large limit returns all")
    func pagination() async throws {
        try await withTemporaryDirectory { root in
            try writeIndexOnlyRoot(at: root, pokemonCount: 45)
            try await withStandInServer(root: root) { server in
                let list = server.baseURL.appendingPathComponent("pokemon/")
                let first = try await page(list)
                #expect(first.count == 45)
                #expect(first.names == (1...20).map { "mon-\($0)" })
                #expect(first.next == "\(server.baseURL)/pokemon/?offset=20&limit=20")
                #expect(first.previous == nil)
                #expect(first.urls.first == "\(server.baseURL)/pokemon/1/")

                #expect(try await page(url(list, "limit=0")).names.count == 20)
                let all = try await page(url(list, "limit=1000"))
                #expect(all.names.count == 45)
                #expect(all.next == nil)
                let last = try await page(url(list, "offset=40&limit=20"))
                #expect(last.names == (41...45).map { "mon-\($0)" })
                #expect(last.previous == "\(server.baseURL)/pokemon/?offset=20&limit=20")

                var collected: [String] = []
                var next: String? = url(list, "limit=7").absoluteString
                while let link = next {
                    let current = try await page(try #require(URL(string: link)))
                    collected += current.names
                    next = current.next
                }
                #expect(collected == (1...45).map { "mon-\($0)" })
            }
        }
    }

    @Test("Documents are minified with absolute API URLs and upstream sprite URLs")
    func absoluteURLs() async throws {
        try await withStandInServer(root: TestPaths.sample2026) { server in
            let (data, response) = try await client.get(server.baseURL.appendingPathComponent("pokemon/25/"))
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
            #expect(!data.contains(Data("\n".utf8)))
            let served = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let species = try #require(served["species"] as? [String: Any])
            #expect(species["url"] as? String == "\(server.baseURL)/pokemon-species/25/")
            let sprites = try #require(served["sprites"] as? [String: Any])
            let front = try #require(sprites["front_default"] as? String)
            #expect(front.hasPrefix("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/"))

            let strings = allStrings(in: served)
            #expect(strings.contains { $0.hasPrefix("\(server.origin)/api/v2/") })
            #expect(!strings.contains { $0.hasPrefix("/api/v2/") })

            // With the origin removed again, the document is the fixture's, value for value.
            let relative = String(decoding: data, as: UTF8.self)
                .replacingOccurrences(of: server.origin.absoluteString, with: "")
            let restored = try JSONSerialization.jsonObject(with: Data(relative.utf8)) as? NSDictionary
            let fixture = try JSONSerialization.jsonObject(
                with: Data(contentsOf: TestPaths.document(in: TestPaths.sample2026, kind: "pokemon", id: 25)))
            #expect(restored == fixture as? NSDictionary)
        }
    }

    @Test("A resource is found by name as well as by id; unknown ones are 404")
    func nameLookup() async throws {
        try await withStandInServer(root: TestPaths.sample2026) { server in
            let (byID, _) = try await client.get(server.baseURL.appendingPathComponent("pokemon/25/"))
            let (byName, _) = try await client.get(server.baseURL.appendingPathComponent("pokemon/pikachu/"))
            #expect(byName == byID)
            let species = try await client.json(server.baseURL.appendingPathComponent("pokemon-species/pikachu/"))
            #expect((species as? [String: Any])?["id"] as? Int == 25)
            let (missing, response) = try await client.get(server.baseURL.appendingPathComponent("pokemon/missingno/"))
            #expect(response.statusCode == 404)
            #expect(String(decoding: missing, as: UTF8.self) == #"{"detail":"Not found."}"#)
        }
    }

    @Test("A path without its trailing slash is a 301 to the slashed path, query kept")
    func missingSlashRedirects() async throws {
        try await withStandInServer(root: TestPaths.sample2026) { server in
            let slashless = try #require(URL(string: "\(server.baseURL)/pokemon/25?lang=en"))
            let (_, redirect) = try await HTTPTestClient(followRedirects: false).get(slashless)
            #expect(redirect.statusCode == 301)
            #expect(redirect.value(forHTTPHeaderField: "Location") == "\(server.baseURL)/pokemon/25/?lang=en")
            let (followed, response) = try await client.get(slashless)
            let (direct, _) = try await client.get(server.baseURL.appendingPathComponent("pokemon/25/"))
            #expect(response.statusCode == 200)
            #expect(followed == direct)
        }
    }

    @Test("ETag and Last-Modified revalidate to 304 with no body; snapshots differ in X-PokeAPI-Hash")
    func conditionalRequests() async throws {
        let hash2026 = try await withStandInServer(root: TestPaths.sample2026) { server in
            let document = server.baseURL.appendingPathComponent("pokedex/35/")
            let (_, first) = try await client.get(document)
            let etag = try #require(first.value(forHTTPHeaderField: "ETag"))
            let lastModified = try #require(first.value(forHTTPHeaderField: "Last-Modified"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
            #expect(first.value(forHTTPHeaderField: "Cache-Control") == "public, max-age=86400")
            #expect(first.value(forHTTPHeaderField: "X-PokeAPI-Deploy-Date") != nil)

            let (empty, notModified) = try await client.get(document, headers: ["If-None-Match": etag])
            #expect(notModified.statusCode == 304)
            #expect(empty.isEmpty)
            let (_, changed) = try await client.get(document, headers: ["If-None-Match": "\"elsewhere\""])
            #expect(changed.statusCode == 200)
            let (_, sinceSame) = try await client.get(document, headers: ["If-Modified-Since": lastModified])
            #expect(sinceSame.statusCode == 304)
            return try #require(first.value(forHTTPHeaderField: "X-PokeAPI-Hash"))
        }
        let hash2025 = try await withStandInServer(root: TestPaths.sample2025) { server in
            let (_, response) = try await client.get(server.baseURL.appendingPathComponent("pokemon/"))
            return response.value(forHTTPHeaderField: "X-PokeAPI-Hash")
        }
        #expect(hash2025 != nil && hash2025 != hash2026)
    }

    @Test("A gzipped answer decodes to the same JSON as the identity answer")
    func gzip() async throws {
        try await withStandInServer(root: TestPaths.sample2026) { server in
            let document = server.baseURL.appendingPathComponent("pokemon/25/")
            let (plain, plainResponse) = try await client.get(document, headers: ["Accept-Encoding": "identity"])
            #expect(plainResponse.value(forHTTPHeaderField: "Content-Encoding") == nil)
            try await server.resetStats()
            // URLSession asks for gzip by default and inflates the body itself.
            let (inflated, response) = try await client.get(document)
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
            #expect(response.value(forHTTPHeaderField: "Vary") == "Accept-Encoding")
            #expect(inflated == plain)
            let stats = try await server.stats()
            #expect(stats.bodyBytes > 0 && stats.bodyBytes < plain.count / 4)
        }
    }

    @Test("Sprites are valid, deterministic images; salts change them; missing globs are 404")
    func sprites() async throws {
        var options = StandInOptions(root: TestPaths.sample2026)
        options.spriteMissing = "pokemon/back/*"
        let png = try await withStandInServer(options) { server in
            let sprite = server.spriteBaseURL.appendingPathComponent("sprites/pokemon/25.png")
            let (data, response) = try await client.get(sprite)
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/png")
            let chunks = try #require(PNGInspector.chunks(of: data))
            #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
            #expect(PNGInspector.size(ofHeader: chunks[0].data) == (16, 16))
            #expect(try await client.get(sprite).0 == data)
            let other = server.spriteBaseURL.appendingPathComponent("sprites/pokemon/26.png")
            #expect(try await client.get(other).0 != data)

            let (gif, gifResponse) = try await client.get(server.spriteBaseURL.appendingPathComponent("sprites/pokemon/25.gif"))
            #expect(gifResponse.value(forHTTPHeaderField: "Content-Type") == "image/gif")
            #expect(gif.starts(with: Data("GIF89a".utf8)) && gif.last == 0x3B)
            let (svg, _) = try await client.get(server.spriteBaseURL.appendingPathComponent("sprites/pokemon/25.svg"))
            #expect(String(decoding: svg, as: UTF8.self).hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))

            for path in ["sprites/pokemon/back/25.png", "sprites/pokemon/25.jpg"] {
                let (_, missing) = try await client.get(server.spriteBaseURL.appendingPathComponent(path))
                #expect(missing.statusCode == 404, "\(path)")
            }
            return data
        }
        options.spriteSalt = "second deploy"
        let salted = try await withStandInServer(options) { server in
            try await client.get(server.spriteBaseURL.appendingPathComponent("sprites/pokemon/25.png")).0
        }
        #expect(salted != png)
        #expect(PNGInspector.chunks(of: salted) != nil)
    }

    @Test("/_stats counts requests per path and per status; reset zeroes them")
    func stats() async throws {
        try await withStandInServer(root: TestPaths.sample2026) { server in
            let document = server.baseURL.appendingPathComponent("evolution-chain/10/")
            let (_, first) = try await client.get(document)
            let etag = try #require(first.value(forHTTPHeaderField: "ETag"))
            _ = try await client.get(document, headers: ["If-None-Match": etag])
            _ = try await client.get(server.baseURL.appendingPathComponent("evolution-chain/9999/"))
            _ = try await client.get(server.spriteBaseURL.appendingPathComponent("sprites/pokemon/25.png"))

            let stats = try await server.stats()
            #expect(stats.requests == 4)
            #expect(stats.count(for: "/api/v2/evolution-chain/10/") == 2)
            #expect(stats.count(for: "/PokeAPI/sprites/master/sprites/pokemon/25.png") == 1)
            #expect(stats.status == ["200": 2, "304": 1, "404": 1])
            #expect(stats.faults == 0)

            try await server.resetStats()
            let cleared = try await server.stats()
            #expect(cleared.requests == 0 && cleared.byPath.isEmpty && cleared.bodyBytes == 0)
        }
    }

    @Test("Each fault kind is observable at --fault-rate 1", arguments: StandInFault.allCases)
    func fault(_ kind: StandInFault) async throws {
        var options = StandInOptions(root: TestPaths.sample2026)
        options.faultRate = 1
        options.faults = [kind]
        try await withStandInServer(options) { server in
            let document = server.baseURL.appendingPathComponent("pokemon/808/")
            switch kind {
            case .internalServerError, .serviceUnavailable, .tooManyRequests:
                let (_, response) = try await client.get(document)
                #expect(response.statusCode == Int(kind.rawValue))
                if kind == .tooManyRequests {
                    #expect(response.value(forHTTPHeaderField: "Retry-After") == "1")
                }
            case .reset:
                await #expect(throws: URLError.self) { try await client.get(document) }
            case .truncate:
                let (data, response) = try await client.get(document)
                #expect(response.statusCode == 200)
                #expect(!data.isEmpty)
                #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: data) }
            }
            let stats = try await server.stats()
            #expect(stats.faultKinds[kind.rawValue] == 1)
            #expect(stats.count(for: "/api/v2/pokemon/808/") == 1)
        }
    }

    @Test("A root that is not an api-data folder stops the server with status 2")
    func rejectsOtherFolders() async throws {
        try await withTemporaryDirectory { folder in
            let error = await #expect(throws: StandInServerError.self) {
                try await withStandInServer(root: folder) { _ in }
            }
            #expect(error?.description.contains("status 2") == true)
            #expect(error?.description.contains("not an api-data folder") == true)
        }
    }

    // MARK: - Helpers

    struct Page {
        var count: Int
        var next: String?
        var previous: String?
        var names: [String]
        var urls: [String]
    }

    func page(_ url: URL) async throws -> Page {
        let object = try #require(try await client.json(url) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        return Page(count: try #require(object["count"] as? Int),
                    next: object["next"] as? String, previous: object["previous"] as? String,
                    names: results.compactMap { $0["name"] as? String },
                    urls: results.compactMap { $0["url"] as? String })
    }

    func url(_ list: URL, _ query: String) -> URL {
        URL(string: "\(list.absoluteString)?\(query)")!
    }

    func allStrings(in value: Any) -> [String] {
        switch value {
        case let string as String: [string]
        case let array as [Any]: array.flatMap(allStrings(in:))
        case let object as [String: Any]: object.values.flatMap(allStrings(in:))
        default: []
        }
    }

    /// An api-data root with `pokemonCount` listed pokemon and no documents: enough for lists.
    func writeIndexOnlyRoot(at root: URL, pokemonCount: Int) throws {
        for kind in Samples.kinds {
            let folder = root.appendingPathComponent("api/v2/\(kind)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let results: [[String: String]] = kind == "pokemon"
                ? (1...pokemonCount).map { ["name": "mon-\($0)", "url": "/api/v2/pokemon/\($0)/"] } : []
            let index: [String: Any] = ["count": results.count, "next": NSNull(), "previous": NSNull(),
                                        "results": results]
            try JSONSerialization.data(withJSONObject: index, options: [.prettyPrinted])
                .write(to: folder.appendingPathComponent("index.json"))
        }
    }
}
