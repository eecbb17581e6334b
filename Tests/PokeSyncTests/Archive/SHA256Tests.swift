import Foundation
import Testing
@testable import PokeSyncCore
import PokeArchive

@Suite("SHA-256")
struct SHA256Tests {
    // FIPS 180-2 appendix B and the NIST example vectors.
    static let nistVectors: [(message: String, digest: String)] = [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ]

    @Test("NIST vectors", arguments: 0..<4)
    func nistVector(index: Int) {
        let (message, expected) = Self.nistVectors[index]
        #expect(SHA256.hash(Array(message.utf8)).hex == expected)
        #expect(SHA256.hash(Data(message.utf8)).hex == expected)
    }

    @Test("one million 'a'")
    func millionA() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hash(message).hex == expected)
        // The same million bytes fed as 1,000 updates of 1,000.
        var hasher = SHA256()
        for start in stride(from: 0, to: message.count, by: 1000) {
            hasher.update(message[start..<(start + 1000)])
        }
        #expect(hasher.finalize().hex == expected)
    }

    @Test("streaming in fixed chunk sizes equals one-shot", arguments: [1, 3, 63, 64, 65, 127, 4096])
    func fixedChunks(chunkSize: Int) {
        var generator = SeededRandom(seed: UInt64(chunkSize))
        let message = randomBytes(count: 10_000, using: &generator)
        var hasher = SHA256()
        message.withUnsafeBytes { buffer in
            for start in stride(from: 0, to: buffer.count, by: chunkSize) {
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[start..<min(start + chunkSize, buffer.count)]))
            }
        }
        #expect(hasher.finalize() == SHA256.hash(message))
    }

    @Test("streaming in random splits equals one-shot")
    func randomSplits() {
        var generator = SeededRandom(seed: 42)
        for _ in 0..<50 {
            let message = randomBytes(count: Int.random(in: 0...3000, using: &generator), using: &generator)
            var hasher = SHA256()
            var start = 0
            while start < message.count {
                let end = min(message.count, start + Int.random(in: 0...200, using: &generator))
                hasher.update(message[start..<end])
                start = end
            }
            #expect(hasher.finalize() == SHA256.hash(message))
        }
    }

    @Test("matches the sha256sum program on random files, every padding boundary included")
    func crossCheckWithSha256sum() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pokesync-sha256-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var generator = SeededRandom(seed: 7)
        let lengths = Array(0...130) + [1000, 65_536, 1_048_576 + 17]
        var expected: [String: SHA256Digest] = [:]
        for length in lengths {
            let bytes = randomBytes(count: length, using: &generator)
            let name = "random-\(length).bin"
            try Data(bytes).write(to: directory.appendingPathComponent(name))
            expected[name] = SHA256.hash(bytes)
        }

        let listing = try await runTool("sha256sum", expected.keys.sorted(), in: directory)
        var checked = 0
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let name = String(fields[1])
            #expect(expected[name]?.hex == String(fields[0]), "\(name)")
            checked += 1
        }
        #expect(checked == lengths.count)
    }

    @Test("digest parses and prints hex, bytes and order")
    func digestValue() throws {
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        let digest = try #require(SHA256Digest(hex: hex))
        #expect(digest == SHA256.hash(Array("abc".utf8)))
        #expect(digest.description == hex)
        #expect(SHA256Digest(hex: hex.uppercased()) == digest)
        #expect(digest.bytes.count == 32)
        #expect(digest.bytes.first == 0xba && digest.bytes.last == 0xad)
        #expect(SHA256Digest(bytes: digest.bytes) == digest)
        #expect(SHA256Digest(bytes: digest.bytes.dropLast()) == nil)
        #expect(SHA256Digest(bytes: digest.bytes + [0]) == nil)
        #expect(SHA256Digest(hex: String(hex.dropLast())) == nil)
        #expect(SHA256Digest(hex: hex + "0") == nil)
        #expect(SHA256Digest(hex: "g" + hex.dropFirst()) == nil)

        // Ordering follows the bytes, compared lexicographically.
        var generator = SeededRandom(seed: 3)
        let digests = (0..<100).map { _ in SHA256.hash(randomBytes(count: 8, using: &generator)) }
        let byBytes = digests.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        #expect(digests.sorted() == byBytes)
        #expect(Set(digests).count == 100)
    }

    @Test("buffer, array and Data inputs agree")
    func inputKinds() {
        var generator = SeededRandom(seed: 11)
        let bytes = randomBytes(count: 777, using: &generator)
        let fromBuffer = bytes.withUnsafeBytes { SHA256.hash($0) }
        #expect(SHA256.hash(bytes) == fromBuffer)
        #expect(SHA256.hash(Data(bytes)) == fromBuffer)
        #expect(SHA256.hash(bytes[...]) == fromBuffer)
    }
}
