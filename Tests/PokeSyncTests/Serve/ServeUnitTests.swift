import Foundation
import Testing
@testable import PokeHTTP
@testable import PokeServe
import PokeArchive
import PokeSyncCore

/// The pieces of `serve` on their own: the head scanner, pagination, the served form.
@Suite("serve: head scanner, pagination, served form")
struct ServeUnitTests {
    static func scan(_ text: String, limits: HTTPLimits = HTTPLimits()) -> HeadScan {
        var scanner = RequestHeadScanner(keeping: RequestHead.servedFields)
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { scanner.scan($0, limits: limits) }
    }

    @Test func headsAreParsed() throws {
        let text = "\r\nGET /api/v2/pokemon/?limit=5 HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"a\"\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
        guard case .complete(let head, let length) = Self.scan(text + "GET") else {
            Issue.record("not complete")
            return
        }
        #expect(length == text.utf8.count)
        #expect(head.method == "GET" && head.path == "/api/v2/pokemon/" && head.query == "limit=5")
        #expect(head.ifNoneMatch == "\"a\"" && head.acceptEncoding == "gzip" && !head.keepAlive && head.minorVersion == 1)
        guard case .complete(let old, _) = Self.scan("GET http://other.example/api/v2/ HTTP/1.0\nConnection: Keep-Alive\n\n") else {
            Issue.record("LF-only, absolute-form head not complete")
            return
        }
        #expect(old.path == "/api/v2/" && old.keepAlive && old.minorVersion == 0)
        #expect(Self.scan("GET / HTTP/1.1\r\nHost: x\r\n") == .incomplete)
        #expect(Self.scan("GET / HTTP/1.1\r\nHost: x\r") == .incomplete)
    }

    /// A list field sent on more than one line is one list, its lines joined by commas in
    /// the order they came; a field sent once is kept as it came.
    @Test func repeatedListFieldsAreJoined() throws {
        let text = "GET / HTTP/1.1\r\nIf-None-Match: \"a\"\r\nAccept-Encoding: br\r\nIf-None-Match: \"b\", \"c\"\r\n"
            + "Access-Control-Request-Headers: x-one\r\nAccept-Encoding: gzip\r\nAccess-Control-Request-Headers: x-two\r\n"
            + "If-None-Match: W/\"d\"\r\n\r\n"
        guard case .complete(let head, _) = Self.scan(text), case .complete(let once, _) = Self.scan("GET / HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n") else {
            Issue.record("not complete")
            return
        }
        #expect(head.ifNoneMatch == "\"a\",\"b\", \"c\",W/\"d\"")
        #expect(head.acceptEncoding == "br,gzip")
        #expect(head.corsHeaders == "x-one,x-two")
        #expect(once.acceptEncoding == "gzip" && once.ifNoneMatch == nil && once.corsHeaders == nil)
    }

    @Test func headsAreRefused() {
        func status(_ text: String) -> Int? {
            if case .rejected(let status, _) = Self.scan(text) { return status.code }
            return nil
        }
        #expect(status("GET /" + String(repeating: "a", count: 9000)) == 414)
        // A request line of exactly 8 kB (its CRLF not counted) is taken; one byte more is not.
        let exact = "GET /" + String(repeating: "a", count: 8192 - 14) + " HTTP/1.1"
        #expect(exact.utf8.count == 8192)
        #expect(status(exact + "\r\nHost: x\r\n\r\n") == nil)
        #expect(status(exact + "\nHost: x\n\n") == nil)
        #expect(status("GET /a" + String(repeating: "a", count: 8192 - 14) + " HTTP/1.1\r\n\r\n") == 414)
        #expect(status("GET / HTTP/1.1\r\nA: " + String(repeating: "a", count: 17000)) == 431)
        #expect(status("GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 101)) == 431)
        #expect(status("GET / HTTP/3.0\r\n\r\n") == 505)
        #expect(status("GET / HTTP/1.1 x\r\n\r\n") == 400)
        #expect(status("G@T / HTTP/1.1\r\n\r\n") == 400)
        #expect(status("GET / FTP/1.1\r\n\r\n") == 400)
        #expect(status("GET /\u{7F} HTTP/1.1\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nA: b\u{01}\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == 400)
    }

    @Test func paginationReadsAndWritesAsDRF() {
        #expect(Pagination(query: nil) == Pagination(limit: 20, offset: 0))
        #expect(Pagination(query: "limit=5&offset=10") == Pagination(limit: 5, offset: 10))
        #expect(Pagination(query: "limit=+5&offset=%2010%20") == Pagination(limit: 5, offset: 10))
        #expect(Pagination(query: "limit=0&offset=-1") == Pagination(limit: 20, offset: 0))
        #expect(Pagination(query: "limit=7&limit=9") == Pagination(limit: 9, offset: 0))
        #expect(Pagination(query: "limit=005") == Pagination(limit: 5, offset: 0))
        let huge = Pagination(query: "limit=99999999999999999999&offset=99999999999999999999")
        #expect(huge.range(count: 10) == 10 ..< 10 && huge.nextQuery(count: 10) == nil && huge.previousQuery == "limit=99999999999999999999")
        #expect(Pagination(query: "limit=3&offset=100000000000000000000").previousQuery == "limit=3&offset=99999999999999999997")
        let page = Pagination(limit: 20, offset: 30)
        #expect(page.range(count: 45) == 30 ..< 45 && page.nextQuery(count: 45) == nil)
        #expect(page.nextQuery(count: 51) == "limit=20&offset=50" && page.previousQuery == "limit=20&offset=10")
        #expect(Pagination(limit: 20, offset: 20).previousQuery == "limit=20")
        // Other parameters ride along, sorted by name and encoded as Python's urlencode does.
        let other = Pagination(query: "offset=40&zeta=1&b=x%20y&limit=20&b=%C3%A9&a+b=%2F")
        #expect(other.nextQuery(count: 100) == "a+b=%2F&b=x+y&b=%C3%A9&limit=20&offset=60&zeta=1")
        #expect(other.previousQuery == "a+b=%2F&b=x+y&b=%C3%A9&limit=20&offset=20&zeta=1")
        #expect(Pagination(query: "format=json&offset=5").previousQuery == "format=json&limit=20")
        #expect(Pagination.subtract("1000", "1") == "999" && Pagination.subtract("5", "5") == nil && Pagination.subtract("4", "5") == nil)
    }

    @Test func theServedFormPrefixesAPIValuesOnly() {
        let form = ServedForm(base: "https://x.example/p", spriteBase: "http://lan:8")
        let canonical = #"{"/api/v2/key":"/api/v2/a/1/","b":["/api/v2/c/","x /api/v2/","\"/api/v2/"],"s":"https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/1.png","n":1}"#
        let held = HeldLinks(sprites: ["pokemon/1.png"], cries: [])
        let served = String(decoding: form.render(Array(canonical.utf8), held: held), as: UTF8.self)
        #expect(served == #"{"/api/v2/key":"https://x.example/p/api/v2/a/1/","b":["https://x.example/p/api/v2/c/","x /api/v2/","\"/api/v2/"],"s":"http://lan:8/sprites/pokemon/1.png","n":1}"#)
        #expect(ServedForm(base: "http://h", spriteBase: nil).render(Array(#"{"s":"https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/a.png"}"#.utf8))
                == Array(#"{"s":"https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/a.png"}"#.utf8))
    }

    @Test func conditionalAndEncodingHeaders() {
        #expect(APIResponder.matches(#""a", W/"b""#, #""b""#))
        #expect(!APIResponder.matches(#""a""#, #""b""#))
        #expect(APIResponder.acceptsGzip("deflate, gzip"))
        #expect(APIResponder.acceptsGzip("*"))
        #expect(!APIResponder.acceptsGzip("gzip;q=0, *"))
        #expect(!APIResponder.acceptsGzip("br"))
        #expect(!APIResponder.acceptsGzip(nil))
    }

    @Test func theCacheIsBoundedByBytes() {
        let cache = BodyCache(capacity: 4000)
        for index in 0 ..< 20 {
            _ = cache.get(.root(version: "\(index)"), plain: true)
            cache.put(.root(version: "\(index)"),
                      RenderedBody(plain: Array(repeating: UInt8(index), count: 500), etag: "\"\(index)\"", memory: MemoryBudget()))
        }
        #expect(cache.bytes <= 4000)
        // While there is room every body is kept; once full, one asked for as often as
        // those it would push out is served and not kept.
        #expect(cache.get(.root(version: "0"), plain: true) != nil)
        #expect(cache.get(.root(version: "19"), plain: true) == nil)
    }

    /// Bodies asked for often stay while a client asks for many distinct ones, once each
    /// (or twice): the cache admits a new body only over bodies asked for less often.
    @Test func aFloodOfDistinctBodiesDoesNotPushOutPopularOnes() {
        let cache = BodyCache(capacity: 40_000)
        let body = { (index: Int) in
            RenderedBody(plain: Array(repeating: UInt8(index % 251), count: 900), etag: "\"\(index)\"", memory: MemoryBudget())
        }
        for round in 0 ..< 3 {
            for index in 0 ..< 10 where cache.get(.root(version: "popular \(index)"), plain: true) == nil {
                cache.put(.root(version: "popular \(index)"), body(index))
                #expect(round == 0)
            }
        }
        for index in 0 ..< 2_000 {
            for _ in 0 ..< 2 where cache.get(.root(version: "flood \(index)"), plain: true) == nil {
                cache.put(.root(version: "flood \(index)"), body(index))
            }
        }
        #expect(cache.bytes <= 40_000)
        for index in 0 ..< 10 { #expect(cache.get(.root(version: "popular \(index)"), plain: true) != nil, "popular \(index)") }
        // A body that becomes popular gets in.
        for _ in 0 ..< 6 { _ = cache.get(.root(version: "rising"), plain: true) }
        cache.put(.root(version: "rising"), body(7))
        #expect(cache.get(.root(version: "rising"), plain: true) != nil)
    }

    /// A body read since it was kept gets a second chance when it comes up for eviction: a
    /// new body asked for more than the cold ones is kept, and the read one stays, though
    /// asked for more than the new one and the oldest of all.
    @Test func aBodyReadGetsASecondChance() {
        let cache = BodyCache(capacity: 20_000)
        let body = { (index: Int) in
            RenderedBody(plain: Array(repeating: UInt8(index % 251), count: 900), etag: "\"\(index)\"", memory: MemoryBudget())
        }
        let key = { (name: String) in BodyKey.root(version: name) }
        for _ in 0 ..< 5 { _ = cache.get(key("hot"), plain: true) }
        cache.put(key("hot"), body(0))
        var cold = 0
        while cache.bytes + body(0).cost <= cache.capacity {
            cold += 1
            _ = cache.get(key("cold \(cold)"), plain: true)
            cache.put(key("cold \(cold)"), body(cold))
        }
        #expect(cold > 5 && cache.get(key("hot"), plain: true) != nil)
        for _ in 0 ..< 2 { _ = cache.get(key("new"), plain: true) }
        cache.put(key("new"), body(99))
        #expect(cache.get(key("new"), plain: true) != nil)
        #expect(cache.get(key("hot"), plain: true) != nil)
        #expect(cache.get(key("cold 1"), plain: true) == nil)
    }

    /// A body kept for gzip only costs its gzip'd bytes; it answers a client taking gzip,
    /// is a miss for one that does not, and gives back its plain bytes by inflating them.
    @Test func aBodyKeptForGzipOnlyIsAMissForPlainAndInflatesBack() throws {
        let memory = MemoryBudget()
        let plain = Array(String(repeating: "{\"name\":\"bulbasaur\",\"url\":\"http://x/api/v2/pokemon/1/\"},", count: 200).utf8)
        let whole = RenderedBody(plain: plain, etag: "\"abc\"", memory: memory)
        let kept = try #require(whole.gzipOnly())
        #expect(kept.plain == nil && kept.gzip === whole.gzip && kept.cost * 10 < whole.cost)
        let cache = BodyCache(capacity: 1 << 20)
        cache.put(.root(version: "1"), kept)
        #expect(cache.get(.root(version: "1"), plain: false) === kept)
        #expect(cache.get(.root(version: "1"), plain: true) == nil)
        #expect(cache.figures.hits == 1 && cache.figures.misses == 1)
        let again = try #require(kept.withPlain(memory: memory))
        #expect(again.plain?.bytes == plain && again.etag == whole.etag && again.gzipETag == whole.gzipETag)
        // A body with no gzip'd copy (too small to gain) is kept whole.
        #expect(RenderedBody(plain: Array("{}".utf8), etag: "\"x\"", memory: memory).gzipOnly() == nil)
    }

    /// The gzip representation has its own entity tag.
    @Test func gzipAndPlainBodiesHaveTwoEntityTags() {
        let body = RenderedBody(plain: Array(repeating: UInt8(ascii: "a"), count: 1000), etag: "\"abc\"", memory: MemoryBudget())
        #expect(body.gzip != nil && body.gzipETag == "\"abc-gzip\"")
        #expect(RenderedBody(plain: Array("{}".utf8), etag: "\"x\"", memory: MemoryBudget()).gzipETag == nil)
    }
}

/// Past the bound on bodies alive, a request that needs a new large body is a 503; cached
/// bodies and small new ones are still served (in-process, against a real mirror).
@Suite("serve: the body bound")
struct ServeBodyBoundTests {
    static func get(_ path: String, query: String? = nil, gzip: Bool = false) -> RequestHead {
        RequestHead(method: "GET", path: path, query: query, minorVersion: 1, keepAlive: true, hasBody: false,
                    fields: gzip ? ["Accept-Encoding": "gzip"] : [:])
    }

    @Test func pastTheBoundNewBodiesWaitAndCachedOnesAreServed() async throws {
        try await withTemporaryDirectory { folder in
            let layout = MirrorLayout(root: try await ServeMirror.make(folder))
            let cache = BodyCache(capacity: 8 << 20), board = VersionBoard(), form = ServedForm(base: "http://x", spriteBase: nil)
            // Both sites count their bodies in one budget, as serve's workers do.
            let memory = MemoryBudget()
            let keeper = try StoreKeeper(layout: layout)
            let roomy = APIResponder(site: Site(form: form, cache: cache, board: board, sprites: nil, cries: nil, layout: layout,
                                                keeper: keeper, bodyBytesLimit: .max, memory: memory))
            let full = APIResponder(site: Site(form: form, cache: cache, board: board, sprites: nil, cries: nil, layout: layout,
                                               keeper: keeper, bodyBytesLimit: 0, memory: memory))
            #expect(roomy.respond(to: Self.get("/api/v2/pokemon/25/")).status == .ok)
            #expect(full.respond(to: Self.get("/api/v2/pokemon/25/")).status == .ok)
            let refused = full.respond(to: Self.get("/api/v2/pokemon/133/"))
            #expect(refused.status == .serviceUnavailable && refused.headers.contains { $0 == ("Retry-After", "1") })
            // A body kept for gzip only, then asked for plain: made from the gzip'd bytes,
            // the same bytes as a plain body made from the store.
            let gzipped = roomy.respond(to: Self.get("/api/v2/pokemon/133/", gzip: true))
            #expect(gzipped.status == .ok && gzipped.body.count > 0)
            let inflated = try Zlib.decompress(gzipped.body.bytes, format: .gzip)
            let plain = roomy.respond(to: Self.get("/api/v2/pokemon/133/"))
            #expect(plain.status == .ok && plain.body.bytes == inflated)
            // A body the cache does not hold is made off the worker; one it holds is answered at once.
            let miss = roomy.answer(Self.get("/api/v2/pokemon-species/25/", gzip: true))
            guard case .deferred = miss else { Issue.record("a miss answered on the worker"); return }
            #expect(miss.reply().status == .ok)
            guard case .ready = roomy.answer(Self.get("/api/v2/pokemon-species/25/", gzip: true)) else {
                Issue.record("a hit deferred"); return
            }
            // A small new body (a short page) is made whatever the bodies alive.
            #expect(full.respond(to: Self.get("/api/v2/move/", query: "limit=3")).status == .ok)
            #expect(full.respond(to: Self.get("/api/v2/nope/")).status == .notFound)
        }
    }
}
