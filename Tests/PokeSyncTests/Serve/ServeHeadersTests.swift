import Foundation
import Testing

/// Every kind of answer serve gives, read off the wire: each passes the one reply builder,
/// so each carries the same default and framing headers (<doc:PokeServe/Serving>, Headers).
@Suite("serve: the headers of every kind of answer", .serialized)
struct ServeHeadersTests {
    @Test func everyAnswerCarriesTheSameDefaultHeaders() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder), ["--max-connections-per-address", "2"])
            // Each answer on a connection of its own, from an address of its own (one the
            // server has just closed may still count against its address's share of 2).
            var source = 10
            func get(_ path: String, headers: [String] = [], method: String = "GET") throws -> RawResponse {
                source += 1
                return try ServeProcess.get(port: server.port, path, headers: headers, method: method, from: "127.0.0.\(source)")
            }
            let document = try get("/api/v2/pokemon/25/")
            let etag = try #require(document.headers["etag"])
            var answers: [(String, RawResponse)] = [
                ("200", document),
                ("304", try get("/api/v2/pokemon/25/", headers: ["If-None-Match: \(etag)"])),
                ("301", try get("/api/v2/pokemon")),
                ("404", try get("/api/v2/nope/")),
                ("405", try get("/api/v2/", method: "POST")),
                ("400 path", try get("/api/v2/%zz/")),
                ("204 OPTIONS", try get("/api/v2/", method: "OPTIONS")),
                ("204 preflight", try get("/api/v2/", headers: ["Origin: https://app.example", "Access-Control-Request-Method: GET"],
                                          method: "OPTIONS")),
            ]
            for (name, bytes) in [("400 head", "GET /api/v2/\0 HTTP/1.1\r\n\r\n"),
                                  ("414", "GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\n\r\n"),
                                  ("431", "GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 200) + "\r\n"),
                                  ("505", "GET / HTTP/2.0\r\n\r\n")] {
                source += 1
                let connection = try RawConnection(port: server.port, from: "127.0.0.\(source)")
                try? connection.send(bytes)
                answers.append((name, try #require(try connection.readResponse(), "\(name)")))
            }
            // The 503 of an address past its share, written at accept.
            let held = try (0 ..< 2).map { _ in try RawConnection(port: server.port, from: "127.0.0.2") }
            answers.append(("503", try ServeProcess.get(port: server.port, "/api/v2/", from: "127.0.0.2")))

            let expected = ["200": 200, "304": 304, "301": 301, "404": 404, "405": 405, "400 path": 400, "204 OPTIONS": 204,
                            "204 preflight": 204, "400 head": 400, "414": 414, "431": 431, "505": 505, "503": 503]
            for (name, response) in answers {
                #expect(response.status == expected[name], "\(name): \(response.status)")
                #expect(response.headers["access-control-allow-origin"] == "*", "\(name): \(response.headers)")
                #expect(response.headers["server"] == "pokesync", "\(name)")
                #expect(response.headers["date"]?.hasSuffix(" GMT") == true, "\(name)")
                #expect(["keep-alive", "close"].contains(response.headers["connection"] ?? ""), "\(name)")
                if response.status == 204 || response.status == 304 {
                    #expect(response.headers["content-length"] == nil && response.body.isEmpty, "\(name)")
                } else {
                    #expect(response.headers["content-length"] == String(response.body.count), "\(name)")
                }
                if response.status >= 400 {
                    #expect(response.headers["content-type"] == "application/json", "\(name)")
                    #expect(response.text.hasPrefix("{\"detail\":"), "\(name): \(response.text)")
                }
            }
            // A 304 keeps the validator and caching headers, and has no Content-Type.
            let notModified = try #require(answers.first { $0.0 == "304" }?.1)
            #expect(notModified.headers["etag"] == etag && notModified.headers["content-type"] == nil)
            #expect(notModified.headers["cache-control"] == "public, max-age=300" && notModified.headers["vary"] == "Accept-Encoding")
            #expect(notModified.headers["x-pokeapi-hash"] == document.headers["x-pokeapi-hash"])
            // Refusals close.
            for name in ["400 head", "414", "431", "505", "503"] {
                #expect(answers.first { $0.0 == name }?.1.headers["connection"] == "close", "\(name)")
            }
            _ = held
            #expect(await server.stop().status == 0)
        }
    }
}
