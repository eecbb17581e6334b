import Foundation
import PokeArchive
import Testing
@testable import PokedexReader

/// The content_digest encoder written for unoptimised builds (an app's Debug build) encodes exactly as
/// <doc:PokedexReader/DeviceDatabase#The-content-digest> says: only `"`, `\` and bytes below 0x20 escaped, `\u00XX` in lowercase hex.
@Suite("content_digest's row encoder")
struct DigestBufferTests {
    func digest(_ fill: (DigestBuffer) -> Void) -> String {
        let buffer = DigestBuffer()
        fill(buffer)
        return buffer.finalize().hex
    }

    func text(_ bytes: [UInt8], into buffer: DigestBuffer) {
        // SQLite's text is NUL-terminated after its length: the encoder may rely on it.
        (bytes + [0]).withUnsafeBufferPointer { buffer.appendJSONString(UnsafeBufferPointer(rebasing: $0.dropLast())) }
    }

    @Test("escapes, an embedded NUL, non-ASCII text, extreme integers, null, and a value larger than the buffer")
    func encoding() {
        let tricky: [UInt8] = Array("a\"b\\c\n\u{0C}é 전기".utf8) + [0, 0x1F, 0x41]
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 200_000) + [0x0A]
        let expected = "\"a\\\"b\\\\c\\u000a\\u000cé 전기\\u0000\\u001fA\"," + "\(Int.min),\(Int.max),0,-7,null]\n"
            + "\"" + String(repeating: "x", count: 200_000) + "\\u000a\""
        let actual = digest { buffer in
            text(tricky, into: buffer)
            buffer.append(UInt8(ascii: ","))
            for value in [Int.min, Int.max, 0, -7] {
                buffer.appendDecimal(value)
                buffer.append(UInt8(ascii: ","))
            }
            buffer.appendNull()
            buffer.appendRowEnd()
            text(long, into: buffer)
        }
        #expect(actual == SHA256.hash(Array(expected.utf8)).hex)
    }
}
