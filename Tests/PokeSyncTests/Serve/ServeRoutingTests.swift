import Foundation
import PokeArchive
import Testing

/// `pokesync serve` answers as the PokeAPI server does: the root, paged lists, documents
/// by id or name, with its headers (tests against a real process). Redirects, 404s, 405s,
/// ids and names, and preflights are tested in process (`ServeRouteTests`).
@Suite("serve: routes, pages and headers", .serialized)
struct ServeRoutingTests {
    @Test func rootListsEveryEndpointAsAbsoluteURLs() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            let root = try server.json("/api/v2/")
            #expect(Set(root.keys) == Set(Samples.kinds))
            #expect(root["pokemon"] as? String == "\(server.base)/api/v2/pokemon/")
            #expect(await server.stop().status == 0)
        }
    }

    @Test func listsPageAsDjangoRestFrameworkDoes() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            let list = "\(server.base)/api/v2/move/"
            let first = try server.json("/api/v2/move/")
            #expect(first["count"] as? Int == 68)
            #expect((first["results"] as? [[String: Any]])?.count == 20)
            #expect(first["next"] as? String == "\(list)?limit=20&offset=20")
            #expect(first["previous"] is NSNull)
            let middle = try server.json("/api/v2/move/?offset=40&limit=20")
            #expect(middle["next"] as? String == "\(list)?limit=20&offset=60")
            #expect(middle["previous"] as? String == "\(list)?limit=20&offset=20")
            // previous drops offset when it would be 0; next is null on the last page.
            let near = try server.json("/api/v2/move/?limit=20&offset=10")
            #expect(near["previous"] as? String == "\(list)?limit=20")
            let last = try server.json("/api/v2/move/?offset=60")
            #expect(last["next"] is NSNull)
            #expect((last["results"] as? [[String: Any]])?.count == 8)
            // A limit that is not a positive integer is 20; an offset not a non-negative integer is 0.
            for query in ["limit=0", "limit=-1", "limit=abc", "limit=1e9", "limit=", "offset=-5", "offset=x"] {
                let page = try server.json("/api/v2/move/?\(query)")
                #expect((page["results"] as? [[String: Any]])?.count == 20, "\(query)")
                #expect(page["next"] as? String == "\(list)?limit=20&offset=20", "\(query)")
            }
            let all = try server.json("/api/v2/move/?limit=100000")
            #expect((all["results"] as? [[String: Any]])?.count == 68)
            #expect(all["next"] is NSNull && all["previous"] is NSNull)
            let beyond = try server.json("/api/v2/move/?offset=99999999999999999999")
            #expect((beyond["results"] as? [Any])?.isEmpty == true)
            #expect(beyond["next"] is NSNull)
            #expect(beyond["previous"] as? String == "\(list)?limit=20&offset=99999999999999999979")
            // The entries are the sample's list, in its order, with absolute URLs.
            let sample = try #require(try Samples.list(TestPaths.sample2026, "move") as? [String: Any])
            let want = try #require(sample["results"] as? [[String: String]]).map { ["name": $0["name"]!, "url": server.base + $0["url"]!] }
            #expect((all["results"] as? [[String: String]]) == want)
            // Evolution chains have no name in their list.
            let chains = try server.json("/api/v2/evolution-chain/")
            #expect((chains["results"] as? [[String: Any]])?.allSatisfy { $0["name"] == nil && $0["url"] != nil } == true)
            await server.stop()
        }
    }

    @Test func documentsByIdOrNameCaseInsensitively() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            let byID = try server.get("/api/v2/pokemon/25/")
            let byName = try server.get("/api/v2/pokemon/Pikachu/")
            let escaped = try server.get("/api/v2/pokemon/%50IKACHU/")
            #expect(byID.status == 200 && byName.body == byID.body && escaped.body == byID.body)
            let pikachu = try #require(try JSONSerialization.jsonObject(with: Data(byID.body)) as? [String: Any])
            #expect(pikachu["name"] as? String == "pikachu")
            let species = try #require(pikachu["species"] as? [String: Any])
            #expect(species["url"] as? String == "\(server.base)/api/v2/pokemon-species/25/")
            // Sprite URLs stay upstream's without --sprite-base.
            let sprites = try #require(pikachu["sprites"] as? [String: Any])
            #expect((sprites["front_default"] as? String)?.hasPrefix("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/") == true)
            // The served document is the sample's, as JSON.
            let sample = try JSONSerialization.jsonObject(with: Data(contentsOf: TestPaths.document(in: TestPaths.sample2026, kind: "pokemon", id: 25)))
            let relative = String(decoding: byID.body, as: UTF8.self).replacingOccurrences(of: server.base, with: "")
            #expect(try JSONSerialization.jsonObject(with: Data(relative.utf8)) as? NSObject == sample as? NSObject)
            await server.stop()
        }
    }

    @Test func headersEtagGzipHeadAndHost() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let server = try await ServeProcess(mirror: mirror, ["--base-url", "https://pokeapi.example.org/mirror/"])
            let plain = try server.get("/api/v2/pokemon/25/", headers: ["Host: evil.example"])
            #expect(plain.headers["access-control-allow-origin"] == "*")
            #expect(plain.headers["cache-control"]?.contains("max-age") == true)
            #expect(plain.headers["content-type"] == "application/json")
            #expect(plain.headers["content-encoding"] == nil)
            let tag = try #require(plain.headers["x-pokeapi-hash"])
            #expect(tag.count == 40)
            // The ETag is the stored hash: SHA-256 of the canonical (relative) document.
            let etag = try #require(plain.headers["etag"])
            let relative = plain.text.replacingOccurrences(of: "https://pokeapi.example.org/mirror", with: "")
            #expect(etag == "\"\(SHA256.hash(Array(relative.utf8)).hex)\"")
            #expect(!plain.text.contains("evil.example"))
            #expect(plain.text.contains("\"https://pokeapi.example.org/mirror/api/v2/ability/9/\""))
            let again = try server.get("/api/v2/pokemon/25/", headers: ["If-None-Match: \"other\", \(etag)"])
            #expect(again.status == 304 && again.body.isEmpty && again.headers["etag"] == etag)
            #expect(try server.get("/api/v2/pokemon/25/", headers: ["If-None-Match: W/\(etag)"]).status == 304)
            #expect(try server.get("/api/v2/pokemon/25/", headers: ["If-None-Match: *"]).status == 304)
            let gzip = try server.get("/api/v2/pokemon/25/", headers: ["Accept-Encoding: br, gzip;q=0.8"])
            #expect(gzip.headers["content-encoding"] == "gzip")
            #expect(try Zlib.decompress(gzip.body, format: .gzip) == plain.body)
            #expect(try server.get("/api/v2/pokemon/25/", headers: ["Accept-Encoding: gzip;q=0"]).headers["content-encoding"] == nil)
            let head = try server.get("/api/v2/pokemon/25/", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty && head.headers["content-length"] == String(plain.body.count))
            #expect(head.headers["etag"] == etag)
            let list = try server.json("/api/v2/pokemon/?limit=5")
            #expect(list["next"] as? String == "https://pokeapi.example.org/mirror/api/v2/pokemon/?limit=5&offset=5")
            let redirect = try server.get("/api/v2/pokemon")
            #expect(redirect.headers["location"] == "https://pokeapi.example.org/mirror/api/v2/pokemon/")
            await server.stop()
        }
    }

    /// Where serve answered otherwise than PokeAPI's Django server: `+1` is a name, names
    /// compare ASCII case-insensitively, a CORS preflight is answered, and the gzip body
    /// has its own entity tag.
    @Test func answersAsPokeAPIsServerDoes() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            // Two representations, two strong validators; each 304s for its own.
            let plain = try server.get("/api/v2/pokemon/25/")
            let gzip = try server.get("/api/v2/pokemon/25/", headers: ["Accept-Encoding: gzip"])
            let plainTag = try #require(plain.headers["etag"]), gzipTag = try #require(gzip.headers["etag"])
            #expect(gzip.headers["content-encoding"] == "gzip")
            #expect(gzipTag == String(plainTag.dropLast()) + "-gzip\"")
            let gzipAgain = try server.get("/api/v2/pokemon/25/", headers: ["Accept-Encoding: gzip", "If-None-Match: \(gzipTag)"])
            #expect(gzipAgain.status == 304 && gzipAgain.headers["etag"] == gzipTag)
            let plainAgain = try server.get("/api/v2/pokemon/25/", headers: ["If-None-Match: \(plainTag)"])
            #expect(plainAgain.status == 304 && plainAgain.headers["etag"] == plainTag)
            // The gzip tag does not validate the plain body for a client that takes no gzip.
            #expect(try server.get("/api/v2/pokemon/25/", headers: ["If-None-Match: \(gzipTag)"]).status == 200)
            // A cache holding the plain body may keep it while it now takes gzip.
            let held = try server.get("/api/v2/pokemon/25/", headers: ["Accept-Encoding: gzip", "If-None-Match: \(plainTag)"])
            #expect(held.status == 304 && held.headers["etag"] == plainTag)
            #expect(try server.get("/api/v2/pokemon/25/", headers: ["If-None-Match: \"other-gzip\""]).status == 200)
            #expect(await server.stop().status == 0)
        }
    }

    @Test func spritesUnderSpriteBase() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let tree = mirror.appendingPathComponent("sprites/pokemon")
            try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
            let png = [UInt8]([0x89, 0x50, 0x4E, 0x47, 13, 10, 26, 10, 1, 2, 3])
            try Data(png).write(to: tree.appendingPathComponent("25.png"))
            try Data("secret".utf8).write(to: folder.appendingPathComponent("secret.txt"))
            try FileManager.default.createSymbolicLink(atPath: tree.appendingPathComponent("26.png").path,
                                                       withDestinationPath: folder.appendingPathComponent("secret.txt").path)
            try FileManager.default.createSymbolicLink(atPath: mirror.appendingPathComponent("sprites/up").path,
                                                       withDestinationPath: folder.path)
            let server = try await ServeProcess(mirror: mirror, ["--sprite-base", "http://lan.example:8080"])
            let sprite = try server.get("/sprites/pokemon/25.png")
            #expect(sprite.status == 200 && sprite.body == png && sprite.headers["content-type"] == "image/png")
            for path in ["/sprites/pokemon/26.png", "/sprites/up/secret.txt", "/sprites/../secret.txt", "/sprites/%2e%2e/secret.txt",
                         "/sprites/pokemon/.hidden", "/sprites/pokemon/25.png%00", "/sprites/pokemon", "/sprites/",
                         "/sprites//pokemon/25.png", "/sprites/pokemon/25.png/"] {
                #expect(try server.get(path).status == 404, "\(path)")
            }
            let pikachu = try server.json("/api/v2/pokemon/25/")
            let sprites = try #require(pikachu["sprites"] as? [String: Any])
            // The mirror was made with --sprites none: its version holds no sprite, so the link
            // keeps upstream's URL (a file dropped into the tree by hand is not the version's).
            #expect(sprites["front_default"] as? String == "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/25.png")
            // The tree's own folder made a link elsewhere: nothing is served through it.
            let moved = mirror.appendingPathComponent("sprites-moved")
            try FileManager.default.moveItem(at: mirror.appendingPathComponent("sprites"), to: moved)
            try FileManager.default.createSymbolicLink(atPath: mirror.appendingPathComponent("sprites").path,
                                                       withDestinationPath: moved.path)
            #expect(try server.get("/sprites/pokemon/25.png").status == 404)
            await server.stop()
        }
    }

    @Test func theWholeAPIsRootListsMetaAndEncounters() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder, from: ServeMirror.whole2026, kinds: "all")
            let server = try await ServeProcess(mirror: mirror)
            // The root is upstream's, with absolute URLs.
            let root = try server.json("/api/v2/")
            let upstream = try #require(try JSONSerialization.jsonObject(
                with: Data(contentsOf: ServeMirror.whole2026.appendingPathComponent("api/v2/index.json"))) as? [String: String])
            #expect(root as? [String: String] == upstream.mapValues { server.base + $0 })
            #expect(root["meta"] as? String == "\(server.base)/api/v2/meta/")
            let meta = try server.json("/api/v2/meta/")
            #expect(meta["hash"] as? String == "0d8fe2bf23d53f44456dc8dd2c861c5dab827146")
            // Encounters by id, with or without the slash; not by name; not for a pokemon without them.
            let encounters = try server.get("/api/v2/pokemon/10196/encounters")
            #expect(encounters.status == 200 && encounters.text.hasPrefix("["))
            #expect(try server.get("/api/v2/pokemon/10196/encounters/").body == encounters.body)
            #expect(try server.get("/api/v2/pokemon/\(try #require(try server.json("/api/v2/pokemon/10196/")["name"] as? String))/encounters").status == 404)
            // A list in the source's order, not id order; negative and zero ids.
            let forms = try server.json("/api/v2/pokemon-form/?limit=100")
            #expect((forms["results"] as? [[String: Any]])?.compactMap { $0["url"] as? String }.map { $0.split(separator: "/").last! }
                    == ["1", "2", "385", "511", "386"])
            #expect(try server.json("/api/v2/move-ailment/-1/")["name"] as? String == "unknown")
            #expect(try server.json("/api/v2/move-ailment/0/")["name"] as? String == "none")
            #expect(try server.json("/api/v2/move-ailment/UNKNOWN/")["id"] as? Int == -1)
            await server.stop()
        }
    }

    @Test func exitCodes() async throws {
        try await withTemporaryDirectory { folder in
            let cli = PokesyncCLI(mirror: folder.appendingPathComponent("Missing"))
            #expect(try await cli.run(["serve", "--listen", "127.0.0.1:0"]).status == 64)
            #expect(try await cli.run(["serve", "--listen", "nonsense"]).status == 64)
            #expect(try await cli.run(["serve", "--listen", "127.0.0.1:70000"]).status == 64)
            #expect(try await cli.run(["serve", "--base-url", "ftp://x"]).status == 64)
            #expect(try await cli.run(["serve", "--base-url", "http://x/?q"]).status == 64)
            let corrupt = folder.appendingPathComponent("Corrupt")
            try FileManager.default.createDirectory(at: corrupt, withIntermediateDirectories: true)
            try Data(repeating: 0x41, count: 4096).write(to: corrupt.appendingPathComponent("store.sqlite"))
            let refused = try await PokesyncCLI(mirror: corrupt).run(["serve", "--listen", "127.0.0.1:0"])
            #expect(refused.status == 65, "\(refused.stderr)")
            let mirror = try await ServeMirror.make(folder)
            let server = try await ServeProcess(mirror: mirror)
            let taken = try await PokesyncCLI(mirror: mirror).run(["serve", "--listen", "127.0.0.1:\(server.port)"])
            #expect(taken.status == 69, "\(taken.stderr)")
            #expect(taken.stderr.contains("cannot listen on 127.0.0.1:\(server.port)"))
            #expect(await server.stop().status == 0)
        }
    }
}
