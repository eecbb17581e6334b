import Foundation
import Testing
@testable import PokedexReader

/// Sprite URLs are `URL` values; text `URL(string:)` refuses is encoded, not dropped.
@Suite("Upstream sprite URLs")
struct UpstreamURLTests {
    @Test("a plain URL is kept as written; a space is percent-encoded; escapes stay")
    func parsing() {
        let plain = "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/25.png"
        #expect(UpstreamURL.make(plain)?.absoluteString == plain)
        #expect(UpstreamURL.make("https://example.org/a b.png")?.absoluteString == "https://example.org/a%20b.png")
        #expect(UpstreamURL.make("https://example.org/a%20b.png")?.absoluteString == "https://example.org/a%20b.png")
    }
}
