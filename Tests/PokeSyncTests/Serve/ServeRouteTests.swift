import Foundation
import Testing
@testable import PokeHTTP
@testable import PokeServe
import PokeSyncCore

/// A request as sent, for the route parser and the responder.
func requestHead(_ target: String, method: String = "GET", headers: [String: String] = [:]) -> RequestHead {
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    return RequestHead(method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : nil,
                       minorVersion: 1, keepAlive: true, hasBody: false, fields: headers)
}

/// Every shape of request `serve` tells apart, parsed into a ``Route`` without a store.
@Suite("serve: routes as values")
struct ServeRouteTests {
    static func route(_ target: String, method: String = "GET", headers: [String: String] = [:]) -> Route {
        Route(requestHead(target, method: method, headers: headers))
    }

    @Test func theRootListsAndDocuments() {
        #expect(Self.route("/api/v2/") == .root)
        #expect(Self.route("/api/v2") == .redirect(location: "/api/v2/", target: .root))
        #expect(Self.route("/api/v2/pokemon/?offset=20&limit=5")
            == .list(kind: .pokemon, page: Pagination(query: "offset=20&limit=5")))
        #expect(Self.route("/api/v2/pokemon/?offset=20&limit=5") == .list(kind: .pokemon, page: Pagination(limit: 5, offset: 20)))
        #expect(Self.route("/api/v2/pokemon?limit=5&offset=2")
            == .redirect(location: "/api/v2/pokemon/?limit=5&offset=2", target: .list(kind: .pokemon, page: Pagination(limit: 5, offset: 2))))
        #expect(Self.route("/api/v2/pokemon/25/") == .document(kind: .pokemon, key: .id(25)))
        #expect(Self.route("/api/v2/pokemon/025/") == .document(kind: .pokemon, key: .id(25)))
        #expect(Self.route("/api/v2/pokemon/-1/") == .document(kind: .pokemon, key: .id(-1)))
        #expect(Self.route("/api/v2/pokemon/99999999999999999999/") == .document(kind: .pokemon, key: .idOutOfRange))
        #expect(Self.route("/api/v2/pokemon/25?x=1")
            == .redirect(location: "/api/v2/pokemon/25/?x=1", target: .document(kind: .pokemon, key: .id(25))))
        #expect(Self.route("/api/v2/meta/") == .meta)
        #expect(Self.route("/api/v2/meta") == .redirect(location: "/api/v2/meta/", target: .meta))
    }

    @Test func namesAreFoundByTheirKey() {
        #expect(Self.route("/api/v2/pokemon/pikachu/") == .document(kind: .pokemon, key: .name("pikachu")))
        #expect(Self.route("/api/v2/pokemon/Pikachu/") == .document(kind: .pokemon, key: .name("pikachu")))
        #expect(Self.route("/api/v2/pokemon/%50IKACHU/") == .document(kind: .pokemon, key: .name("pikachu")))
        // An id is an optional minus and digits: `+1`, `0x19`, `25 ` and fullwidth digits are names.
        #expect(Self.route("/api/v2/pokemon/+1/") == .document(kind: .pokemon, key: .name("+1")))
        #expect(Self.route("/api/v2/pokemon/%2B25/") == .document(kind: .pokemon, key: .name("+25")))
        #expect(Self.route("/api/v2/pokemon/25%20/") == .document(kind: .pokemon, key: .name("25 ")))
        #expect(Self.route("/api/v2/pokemon/%EF%BC%92%EF%BC%95/") == .document(kind: .pokemon, key: .name("２５")))
        // ASCII letters only are folded: a Kelvin sign is no `k`.
        #expect(Self.route("/api/v2/pokemon/pi%E2%84%AAachu/") == .document(kind: .pokemon, key: .name("pi\u{212A}achu")))
        // DRF's lookup is one segment without a dot.
        #expect(Self.route("/api/v2/pokemon/mr.mime/") == .notFound)
        #expect(Self.route("/api/v2/pokemon/mr.mime") == .notFound)
    }

    @Test func encountersWithOrWithoutTheSlashByIdOnly() {
        #expect(Self.route("/api/v2/pokemon/25/encounters") == .encounters(id: 25))
        #expect(Self.route("/api/v2/pokemon/25/encounters/") == .encounters(id: 25))
        #expect(Self.route("/api/v2/pokemon/pikachu/encounters") == .notFound)
        #expect(Self.route("/api/v2/pokemon/-1/encounters") == .notFound)
        #expect(Self.route("/api/v2/pokemon-species/25/encounters") == .notFound)
    }

    @Test func pathsThatAreNoRoute() {
        for path in ["/", "//", "/api", "/api/v2x/", "/api/v2//pokemon/", "/api/v2/pokemon//", "/api/v2/pokemon/25/extra/",
                     "/api/v2/../../store.sqlite", "/api/v2/%2e%2e/%2e%2e/store.sqlite", "/api/v2/a/b/c/d/",
                     "/" + String(repeating: "a/", count: 3000)] {
            #expect(Self.route(path) == .notFound, "\(path.prefix(60))")
        }
        // One segment is a kind's name whatever it is; the version says whether it has it.
        #expect(Self.route("/api/v2/%2e%2e/") == .list(kind: ResourceKind(rawValue: ".."), page: Pagination(query: nil)))
        #expect(Self.route("/api/v2/pokemon/%00/") == .document(kind: .pokemon, key: .name("\0")))
        #expect(Self.route("/api/v2/pokemon/%zz/") == .badPath)
        #expect(Self.route("/api/v2/pokemon/%2/") == .badPath)
    }

    @Test func methodsAndPreflights() {
        #expect(Self.route("/api/v2/", method: "OPTIONS") == .options)
        #expect(Self.route("/api/v2/pokemon/25/", method: "OPTIONS", headers: ["Origin": "https://app.example"]) == .options)
        #expect(Self.route("/api/v2/pokemon/25/", method: "OPTIONS", headers: [
            "Origin": "https://app.example", "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "if-none-match, X-Trace,bad header, x-trace,,",
        ]) == .preflight(allowHeaders: ["if-none-match", "x-trace"]))
        #expect(Self.route("/nowhere", method: "OPTIONS", headers: ["Origin": "o", "Access-Control-Request-Method": "GET"])
            == .preflight(allowHeaders: []))
        for method in ["POST", "PUT", "DELETE", "PATCH", "TRACE", "CONNECT", "get"] {
            #expect(Self.route("/api/v2/pokemon/25/", method: method) == .methodNotAllowed(method: method))
        }
        #expect(Self.route("/api/v2/pokemon/25/", method: "HEAD") == .document(kind: .pokemon, key: .id(25)))
    }

    @Test func linkedFiles() {
        #expect(Self.route("/sprites/pokemon/25.png") == .sprite(path: "pokemon/25.png"))
        #expect(Self.route("/sprites/pokemon/other/%2E%2E/25.png") == .sprite(path: "pokemon/other/../25.png"))
        #expect(Self.route("/cries/pokemon/latest/25.ogg") == .cry(path: "pokemon/latest/25.ogg"))
        #expect(Self.route("/sprites") == .notFound)
    }
}

/// Routes resolved against a version: what the responder answers each shape with, in
/// process against a real mirror (the sample's default kinds: no meta, no encounters).
@Suite("serve: routes answered")
struct ServeRouteAnswerTests {
    static let base = "http://127.0.0.1:1"

    static func responder(_ folder: URL) async throws -> APIResponder {
        let layout = MirrorLayout(root: try await ServeMirror.make(folder))
        let site = Site(form: ServedForm(base: base, spriteBase: nil), cache: BodyCache(capacity: 8 << 20), board: VersionBoard(),
                        sprites: nil, cries: nil, layout: layout, keeper: try StoreKeeper(layout: layout), bodyBytesLimit: .max,
                        memory: MemoryBudget())
        return APIResponder(site: site)
    }

    static func header(_ reply: Reply, _ name: String) -> String? {
        reply.headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    @Test func redirectsNotFoundAndMethods() async throws {
        try await withTemporaryDirectory { folder in
            let responder = try await Self.responder(folder)
            for (path, location) in [("/api/v2", "/api/v2/"), ("/api/v2/pokemon", "/api/v2/pokemon/"),
                                     ("/api/v2/pokemon?limit=5&offset=2", "/api/v2/pokemon/?limit=5&offset=2"),
                                     ("/api/v2/pokemon/25", "/api/v2/pokemon/25/"), ("/api/v2/pokemon/99999", "/api/v2/pokemon/99999/"),
                                     ("/api/v2/pokemon/Pikachu?a=%20", "/api/v2/pokemon/Pikachu/?a=%20")] {
                let reply = responder.respond(to: requestHead(path))
                #expect(reply.status == .movedPermanently, "\(path)")
                #expect(Self.header(reply, "Location") == Self.base + location, "\(path)")
                let head = reply.head(keepAlive: true, date: "now", defaults: [], server: "test", memory: MemoryBudget())
                #expect(String(decoding: head.bytes, as: UTF8.self)
                    .hasPrefix("HTTP/1.1 301 Moved Permanently\r\n"))
            }
            for path in ["/", "//", "/api/v2/berry/", "/api/v2/berry", "/api/v2/berry/1", "/api/v2/pokemon/99999/",
                         "/api/v2/pokemon/nope/", "/api/v2/pokemon/+1/", "/api/v2/pokemon/-1/", "/api/v2/pokemon/pi%E2%84%AAachu/",
                         "/api/v2//pokemon/", "/api/v2/pokemon/25/extra/", "/api/v2/pokemon/mr.mime/", "/api/v2/../../store.sqlite",
                         "/api/v2/%2e%2e/", "/api/v2/%2e%2e/%2e%2e/store.sqlite", "/api/v2/pokemon/%00/", "/sprites/pokemon/25.png",
                         "/cries/pokemon/latest/25.ogg", "/api/v2/pokemon/25/encounters", "/api/v2/meta/", "/api/v2/meta",
                         "/" + String(repeating: "a/", count: 3000), "/api/v2/pokemon/" + String(repeating: "x", count: 300) + "/"] {
                let reply = responder.respond(to: requestHead(path))
                #expect(reply.status == .notFound, "\(path.prefix(60)): \(reply.status)")
                #expect(Self.header(reply, "Content-Type") == "application/json")
                #expect(Self.header(reply, "X-PokeAPI-Hash")?.count == 40)
                #expect(reply.body.bytes == Array(#"{"detail":"Not found."}"#.utf8))
            }
            let bad = responder.respond(to: requestHead("/api/v2/pokemon/%zz/"))
            #expect(bad.status == .badRequest && bad.body.bytes == Array(#"{"detail":"A malformed path."}"#.utf8))
            for method in ["POST", "PUT", "DELETE", "PATCH", "TRACE", "CONNECT"] {
                let reply = responder.respond(to: requestHead("/api/v2/pokemon/25/", method: method))
                #expect(reply.status == .methodNotAllowed, "\(method)")
                #expect(Self.header(reply, "Allow") == "GET, HEAD, OPTIONS")
                #expect(reply.body.bytes == Array("{\"detail\":\"Method \\\"\(method)\\\" not allowed.\"}".utf8))
            }
        }
    }

    @Test func documentsByIdOrNameAndPreflights() async throws {
        try await withTemporaryDirectory { folder in
            let responder = try await Self.responder(folder)
            let byID = responder.respond(to: requestHead("/api/v2/pokemon/25/"))
            #expect(byID.status == .ok)
            for path in ["/api/v2/pokemon/025/", "/api/v2/pokemon/pikachu/", "/api/v2/pokemon/PiKaChU/", "/api/v2/pokemon/%50IKACHU/"] {
                let reply = responder.respond(to: requestHead(path))
                #expect(reply.status == .ok && reply.body.bytes == byID.body.bytes, "\(path)")
            }
            let page = responder.respond(to: requestHead("/api/v2/move/?offset=20&limit=5"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(page.body.bytes)) as? [String: Any])
            #expect(json["next"] as? String == Self.base + "/api/v2/move/?limit=5&offset=25")
            #expect((json["results"] as? [Any])?.count == 5)
            let root = try #require(try JSONSerialization.jsonObject(
                with: Data(responder.respond(to: requestHead("/api/v2/")).body.bytes)) as? [String: String])
            #expect(root["pokemon"] == Self.base + "/api/v2/pokemon/" && root["meta"] == nil)

            let preflight = responder.respond(to: requestHead("/api/v2/pokemon/25/", method: "OPTIONS", headers: [
                "Origin": "https://app.example", "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "if-none-match, X-Trace,bad header"]))
            #expect(preflight.status == .noContent && !preflight.sendsBody)
            #expect(Self.header(preflight, "Access-Control-Allow-Methods") == "GET, HEAD, OPTIONS")
            #expect(Self.header(preflight, "Access-Control-Allow-Headers") == "if-none-match, x-trace")
            #expect(Self.header(preflight, "Access-Control-Max-Age") == "86400")
            // No body and no Content-Length on the wire, with the status's own phrase.
            let head = String(decoding: preflight.head(keepAlive: true, date: "now", defaults: [], server: "test", memory: MemoryBudget()).bytes,
                              as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 204 No Content\r\n") && !head.contains("Content-Length"))
            let options = responder.respond(to: requestHead("/api/v2/", method: "OPTIONS"))
            #expect(options.status == .noContent && Self.header(options, "Allow") == "GET, HEAD, OPTIONS")
            #expect(Self.header(options, "Access-Control-Allow-Methods") == nil)
        }
    }
}
