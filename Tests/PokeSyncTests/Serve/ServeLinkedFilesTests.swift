import Foundation
import Testing
@testable import PokeSyncCore

/// `serve --sprite-base` over mirrors with and without every linked file: a link points at
/// this server only when the served version holds its file, so no served link is a local 404.
@Suite("serve: linked files under --sprite-base", .serialized)
struct ServeLinkedFilesTests {
    static let lan = "http://lan.example:8080"

    /// Every string of the served documents of the kinds that link files, read through the server.
    static func servedLinks(_ server: ServeProcess) throws -> [String] {
        var links: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] { object.values.forEach(walk) }
            else if let array = value as? [Any] { array.forEach(walk) }
            else if let text = value as? String, text.hasPrefix(lan + "/") || text.hasPrefix("https://raw.githubusercontent.com/") {
                links.append(text)
            }
        }
        let api = LinkedFilesTests.whole.appendingPathComponent("api/v2")
        for kind in ["pokemon", "pokemon-form", "item", "type"] {
            for entry in try FileManager.default.contentsOfDirectory(atPath: api.appendingPathComponent(kind).path) where Int(entry) != nil {
                walk(try server.json("/api/v2/\(kind)/\(entry)/"))
            }
        }
        return links
    }

    /// Every local link answers 200 with its type and an ETag (304 when it matches).
    static func expectLocalLinksAnswer(_ links: [String], _ server: ServeProcess) throws {
        for link in links where link.hasPrefix(lan + "/") {
            let path = String(link.dropFirst(lan.count))
            let response = try server.get(path)
            #expect(response.status == 200, "\(path): \(response.status)")
            let type = response.headers["content-type"] ?? ""
            #expect(path.hasSuffix(".ogg") ? type == "audio/ogg" : type.hasPrefix("image/"), "\(path): \(type)")
            let etag = try #require(response.headers["etag"], "\(path)")
            #expect(try server.get(path, headers: ["If-None-Match: \(etag)"]).status == 304, "\(path)")
        }
    }

    @Test func aFullMediaMirrorServesEveryLinkLocally() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(root: LinkedFilesTests.whole) { standIn in
                let full = try await cli.run(LinkedFilesTests.arguments("full", standIn))
                #expect(full.status == 0, "\(full.stderr)")
            }
            let server = try await ServeProcess(mirror: cli.mirror, ["--sprite-base", Self.lan])
            let links = try Self.servedLinks(server)
            // Everything is held: no link leaves the LAN.
            #expect(links.allSatisfy { $0.hasPrefix(Self.lan + "/") }, "\(links.filter { !$0.hasPrefix(Self.lan) }.prefix(5))")
            #expect(links.contains("\(Self.lan)/sprites/items/master-ball.png"))
            #expect(links.contains { $0.hasPrefix("\(Self.lan)/sprites/types/") })
            #expect(links.contains("\(Self.lan)/cries/pokemon/latest/1.ogg"))
            try Self.expectLocalLinksAnswer(links, server)
            // Without --sprite-base, documents keep upstream's links.
            await server.stop()
            let plain = try await ServeProcess(mirror: cli.mirror)
            let item = try plain.json("/api/v2/item/1/")
            #expect((item["sprites"] as? [String: Any])?["default"] as? String
                    == "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/items/master-ball.png")
            await plain.stop()
        }
    }

    @Test func aDefaultSpritesMirrorKeepsUpstreamLinksForWhatItLacks() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(root: LinkedFilesTests.whole) { standIn in
                let full = try await cli.run(LinkedFilesTests.arguments("full", standIn, sprites: "default", cries: "none"))
                #expect(full.status == 0, "\(full.stderr)")
            }
            let server = try await ServeProcess(mirror: cli.mirror, ["--sprite-base", Self.lan])
            let pokemon = try server.json("/api/v2/pokemon/1/")
            let sprites = try #require(pokemon["sprites"] as? [String: Any])
            #expect(sprites["front_default"] as? String == "\(Self.lan)/sprites/pokemon/1.png")
            #expect((sprites["back_default"] as? String)?.hasPrefix(LinkedFilesTests.spritePrefix) == true)
            #expect((pokemon["cries"] as? [String: Any])?["latest"] as? String == LinkedFilesTests.cryPrefix + "pokemon/latest/1.ogg")
            let item = try server.json("/api/v2/item/1/")
            #expect((item["sprites"] as? [String: Any])?["default"] as? String == LinkedFilesTests.spritePrefix + "items/master-ball.png")
            let form = try server.json("/api/v2/pokemon-form/1/")
            // A form's front_default is its pokemon's file (held); its back_default is not.
            let formSprites = try #require(form["sprites"] as? [String: Any])
            #expect(formSprites["front_default"] as? String == "\(Self.lan)/sprites/pokemon/1.png")
            #expect((formSprites["back_default"] as? String)?.hasPrefix(LinkedFilesTests.spritePrefix) == true)
            let links = try Self.servedLinks(server)
            let local = links.filter { $0.hasPrefix(Self.lan + "/") }
            #expect(!local.isEmpty && local.allSatisfy { $0.hasPrefix("\(Self.lan)/sprites/pokemon/") }, "\(local)")
            #expect(!links.contains { $0.contains("/types/") && $0.hasPrefix(Self.lan) })
            try Self.expectLocalLinksAnswer(links, server)
            // A cry asked for by path is not there: the server holds none.
            #expect(try server.get("/cries/pokemon/latest/1.ogg").status == 404)
            await server.stop()
        }
    }
}
