import Foundation
import Testing
@testable import PokeSyncCore

@Suite("Sprite policy")
struct SpritePolicyTests {
    let upstream = SpritePolicy.upstreamPrefix + "sprites/"

    @Test func upstreamURLMapsToTreePath() throws {
        let policy = SpritePolicy(sourceURL: URL(string: "https://pokeapi.co/api/v2"))
        let resolved = try policy.resolve(upstream + "pokemon/25.png").get()
        #expect(resolved.path == "pokemon/25.png")
        #expect(resolved.location == .http(URL(string: upstream + "pokemon/25.png")!))
    }

    @Test func spriteSourceURLReplacesThePrefix() throws {
        let policy = SpritePolicy(sourceURL: URL(string: "http://127.0.0.1:9/api/v2"), source: .http(URL(string: "http://127.0.0.1:9/PokeAPI/sprites/master/")!))
        let resolved = try policy.resolve(upstream + "pokemon/other/official-artwork/25.png").get()
        #expect(resolved.path == "pokemon/other/official-artwork/25.png")
        #expect(resolved.location == .http(URL(string: "http://127.0.0.1:9/PokeAPI/sprites/master/sprites/pokemon/other/official-artwork/25.png")!))
    }

    @Test func spriteSourceFolderReadsTheClone() throws {
        let root = URL(fileURLWithPath: "/srv/sprites")
        let policy = SpritePolicy(sourceURL: nil, source: .folder(root))
        let resolved = try policy.resolve(upstream + "pokemon/versions/generation-v/black-white/animated/25.gif").get()
        #expect(resolved.location == .file(URL(fileURLWithPath: "/srv/sprites/sprites/pokemon/versions/generation-v/black-white/animated/25.gif")))
    }

    @Test(arguments: [
        ("https://evil.example/PokeAPI/sprites/master/sprites/pokemon/1.png", "not on the allow-list"),
        ("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/../../../etc/passwd.png", "escapes"),
        ("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/%2e%2e/%2e%2e/x.png", "escapes"),
        ("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/..%2f..%2fx.png", "escapes"),
        ("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites//etc/passwd.png", "absolute path"),
        ("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/a%00b.png", "NUL"),
        ("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon\\..\\x.png", "backslash"),
        ("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/%5C..%5Cx.png", "backslash"),
        ("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/25.exe", "not a .png"),
        ("file:///etc/passwd", "not an http(s) URL"),
        ("ftp://raw.githubusercontent.com/x/sprites/a.png", "not an http(s) URL"),
        ("https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/1.png?x=1", "query"),
        ("https://raw.githubusercontent.com/elsewhere/1.png", "not below"),
        ("http://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/1.png", "allow-list"),
        ("https://pokeapi.co:22/media/sprites/pokemon/1.png", "allow-list"),
        ("http://pokeapi.co/media/sprites/pokemon/1.png", "allow-list"),
    ])
    func hostileURLsAreRefused(url: String, reason: String) {
        let policy = SpritePolicy(sourceURL: URL(string: "https://pokeapi.co/api/v2"))
        switch policy.resolve(url) {
        case .success(let resolved): Issue.record("accepted \(url) as \(resolved.path)")
        case .failure(let refusal): #expect(refusal.reason.contains(reason), "\(url): \(refusal.reason)")
        }
    }

    @Test func extraAllowedHostsAreFetchedAsIs() throws {
        let policy = SpritePolicy(sourceURL: URL(string: "https://pokeapi.co/api/v2"), extraHosts: ["cdn.example"])
        let resolved = try policy.resolve("https://cdn.example/PokeAPI/sprites/master/sprites/pokemon/1.png").get()
        #expect(resolved.path == "pokemon/1.png")
        #expect(resolved.location == .http(URL(string: "https://cdn.example/PokeAPI/sprites/master/sprites/pokemon/1.png")!))
    }

    /// Only the sprites repository's layout gives a place in the tree: another layout on
    /// an allowed host is refused, not placed from its first `/sprites/`.
    @Test(arguments: [
        "https://cdn.example/mirror/sprites/pokemon/1.png",
        "https://cdn.example/sprites/master/sprites/pokemon/25.png",
        "https://pokeapi.co/media/sprites/pokemon/25.png",
        "https://cdn.example/x/PokeAPI/sprites/master/sprites/pokemon/25.png",
    ])
    func otherLayoutsAreRefused(url: String) {
        let policy = SpritePolicy(sourceURL: URL(string: "https://pokeapi.co/api/v2"), extraHosts: ["cdn.example"])
        switch policy.resolve(url) {
        case .success(let resolved): Issue.record("accepted \(url) as \(resolved.path)")
        case .failure(let refusal): #expect(refusal.reason.contains("layout"), "\(url): \(refusal.reason)")
        }
    }

    @Test func anHTTPSpriteSourceBaseIsItsOwnLayout() throws {
        let policy = SpritePolicy(sourceURL: nil, source: .http(URL(string: "http://127.0.0.1:9/pk")!))
        #expect(try policy.resolve("http://127.0.0.1:9/pk/sprites/pokemon/1.png").get().path == "pokemon/1.png")
        #expect(throws: SpriteRefusal.self) { try policy.resolve("http://127.0.0.1:9/other/sprites/pokemon/1.png").get() }
    }

    @Test(arguments: [
        ("\u{202E}gnp.52", "U+202E"), ("25\u{200B}.png", "U+200B"), ("25\u{2028}.png", "U+2028"),
        ("%E2%80%AEgnp.52", "U+202E"), ("25%zz.png", "percent"), ("25%2.png", "percent"), ("25.png%", "percent"),
    ])
    func invisibleCharactersAndBadEscapesAreRefused(name: String, reason: String) {
        let policy = SpritePolicy(sourceURL: URL(string: "https://pokeapi.co/api/v2"))
        switch policy.resolve(upstream + "pokemon/" + name) {
        case .success(let resolved): Issue.record("accepted \(name) as \(resolved.path)")
        case .failure(let refusal): #expect(refusal.reason.contains(reason), "\(name): \(refusal.reason)")
        }
    }

    @Test func spriteSetsSelectTheirKeys() throws {
        #expect(try SpriteSet(parsing: "default").selects("front_default"))
        #expect(!(try SpriteSet(parsing: "default").selects("back_default")))
        #expect(try SpriteSet(parsing: "artwork").selects("other/official-artwork/front_shiny"))
        #expect(try SpriteSet(parsing: "all").selects("versions/generation-i/red-blue/front_gray"))
        #expect(!(try SpriteSet(parsing: "none").selects("front_default")))
        let list = try SpriteSet(parsing: "front_default,other/home/front_default")
        #expect(list.selects("other/home/front_default") && !list.selects("other/home/front_shiny"))
        #expect(throws: RequestError.self) { try SpriteSet(parsing: "front_default,../x") }
        #expect(throws: RequestError.self) { try SpriteSet(parsing: "Front Default") }
        // A typo is not a path: every path ends in a sprite field, below other/ or versions/.
        for wrong in ["defualt", "front_defualt", "front_default,", "pokemon/25", "other/home", "foo/front_default", "artwork,all"] {
            #expect(throws: RequestError.self, "\(wrong)") { try SpriteSet(parsing: wrong) }
        }
        for right in ["front_default,back_shiny_female", "other/official-artwork/front_shiny", "versions/generation-i/red-blue/front_gray",
                      "other/showdown/back_shiny_transparent"] {
            #expect(throws: Never.self, "\(right)") { try SpriteSet(parsing: right) }
        }
    }

    @Test func imagesMustBeWholeAndOfTheirType() {
        let png = ImageCheck.pngSignature + [0, 0, 0, 13] + Array("IHDR".utf8) + Array(repeating: 0, count: 17) + ImageCheck.pngEnd
        #expect(ImageCheck.problem(png, fileExtension: "png") == nil)
        #expect(ImageCheck.problem(Array(png.dropLast(3)), fileExtension: "png") == .incomplete)
        #expect(ImageCheck.problem(png + [0x0A, 0x00], fileExtension: "png") == nil, "stray bytes after IEND are whole")
        #expect(ImageCheck.problem(Array("<html>hi</html>".utf8), fileExtension: "png") != nil)
        #expect(ImageCheck.problem(png, fileExtension: "gif") != nil)
        #expect(ImageCheck.problem(Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B], fileExtension: "gif") == nil)
        #expect(ImageCheck.problem(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n".utf8), fileExtension: "svg") == nil)
        #expect(ImageCheck.problem(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/>".utf8), fileExtension: "svg") == .incomplete)
        #expect(ImageCheck.problem(Array("{\"json\":1}".utf8), fileExtension: "svg") != nil)
    }

    /// A cry is a whole Ogg stream: pages from its first byte to its last, each with its
    /// checksum right, the last with the end-of-stream flag. HTML, a wrong checksum on the
    /// last page or bytes after it are refused; a stream cut before its end is incomplete.
    @Test func criesMustBeWholeOggStreams() {
        // The checksum written independently of the one checked: bit by bit.
        func checksum(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0
            for byte in bytes {
                crc ^= UInt32(byte) << 24
                for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
            }
            return crc
        }
        func page(_ type: UInt8, _ payload: Int, sequence: UInt8) -> [UInt8] {
            var bytes = Array("OggS".utf8) + [0, type] + Array(repeating: 0, count: 8) + [9, 9, 9, 9, sequence, 0, 0, 0]
                + [0, 0, 0, 0] + [1, UInt8(payload)] + Array(repeating: 7, count: payload)
            let crc = checksum(bytes)
            bytes.replaceSubrange(22..<26, with: [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
            return bytes
        }
        let stream = page(0x02, 30, sequence: 0) + page(0x00, 200, sequence: 1) + page(0x04, 40, sequence: 2)
        #expect(ImageCheck.problem(stream, fileExtension: "ogg") == nil)
        #expect(ImageCheck.problem(Array(stream.prefix(260)), fileExtension: "ogg") == .incomplete)
        // No end-of-stream page: cut short.
        #expect(ImageCheck.problem(page(0x02, 30, sequence: 0) + page(0x00, 20, sequence: 1), fileExtension: "ogg") == .incomplete)
        // Garbage after the end page, even one byte, or another page: not a whole stream.
        for tail in [[0x0A], Array("<html>".utf8), page(0x00, 10, sequence: 3)] {
            guard case .wrongType(let reason)? = ImageCheck.problem(stream + tail, fileExtension: "ogg") else {
                Issue.record("\(tail.count) bytes after the end page were accepted"); continue
            }
            #expect(reason.contains("after its end-of-stream page"), "\(reason)")
        }
        // A wrong checksum on the last page (one payload byte changed).
        var damaged = stream
        damaged[damaged.count - 1] ^= 0x01
        guard case .wrongType(let reason)? = ImageCheck.problem(damaged, fileExtension: "ogg") else {
            Issue.record("a damaged last page was accepted"); return
        }
        #expect(reason.contains("wrong checksum"), "\(reason)")
        #expect(ImageCheck.problem(Array("<!DOCTYPE html><html>rate limited</html>".utf8), fileExtension: "ogg")
                == .wrongType("not an Ogg stream (no OggS capture pattern)"))
        #expect(ImageCheck.problem(stream, fileExtension: "png") != nil)
    }

    /// The cries repository's layout: its own prefix and tree, `--cry-source` mapping the
    /// repository's root, and nothing of the sprites repository or other types of file.
    @Test func cryLinksMapToTheCriesTree() throws {
        let cries = LinkedTree.cries.upstreamPrefix + "cries/"
        let policy = SpritePolicy(sourceURL: URL(string: "https://pokeapi.co/api/v2"), tree: .cries)
        let resolved = try policy.resolve(cries + "pokemon/latest/25.ogg").get()
        #expect(resolved.path == "pokemon/latest/25.ogg" && resolved.tree == .cries)
        #expect(resolved.location == .http(URL(string: cries + "pokemon/latest/25.ogg")!))
        let mapped = SpritePolicy(sourceURL: nil, source: .http(URL(string: "http://127.0.0.1:9/PokeAPI/cries/main/")!), tree: .cries)
        #expect(try mapped.resolve(cries + "pokemon/legacy/25.ogg").get().location
                == .http(URL(string: "http://127.0.0.1:9/PokeAPI/cries/main/cries/pokemon/legacy/25.ogg")!))
        let clone = SpritePolicy(sourceURL: nil, source: .folder(URL(fileURLWithPath: "/srv/cries")), tree: .cries)
        #expect(try clone.resolve(cries + "pokemon/latest/1.ogg").get().location
                == .file(URL(fileURLWithPath: "/srv/cries/cries/pokemon/latest/1.ogg")))
        for (url, reason) in [(upstream + "pokemon/25.png", "not below the cries folder"),
                              (cries + "pokemon/latest/25.png", "not an .ogg sound"),
                              (cries + "pokemon/../../x.ogg", "escapes"),
                              ("https://evil.example/PokeAPI/cries/main/cries/pokemon/latest/1.ogg", "not on the allow-list")] {
            switch policy.resolve(url) {
            case .success: Issue.record("accepted \(url)")
            case .failure(let refusal): #expect(refusal.reason.contains(reason), "\(url): \(refusal.reason)")
            }
        }
        // The sprites policy takes no cry.
        #expect((try? SpritePolicy(sourceURL: nil).resolve(cries + "pokemon/latest/25.ogg").get()) == nil)
    }
}
