import Foundation
import Testing
import PokeArchive

/// SHA256 has two compression paths: the CPU's SHA extensions (x86 SHA-NI, through the
/// CSHA256 target) and portable Swift rounds (every other CPU, and the reader on arm64).
/// Each test here runs both, so the Swift rounds stay tested on machines with SHA-NI.
@Suite("SHA-256 on both compression paths")
struct SHA256PathsTests {
    enum Path: String, CaseIterable, CustomTestStringConvertible {
        case automatic, portable
        var testDescription: String { rawValue }

        func hash(_ bytes: [UInt8]) -> SHA256Digest {
            var hasher = self == .portable ? SHA256.portableHasher() : SHA256()
            hasher.update(bytes)
            return hasher.finalize()
        }
    }

    @Test("NIST vectors, the 448- and 896-bit messages included", arguments: Path.allCases)
    func nistVectors(path: Path) {
        for (message, expected) in SHA256Tests.nistVectors {
            #expect(path.hash(Array(message.utf8)).hex == expected, "\(message)")
        }
    }

    @Test("one million 'a', in one call and in 1,000-byte updates", arguments: Path.allCases)
    func millionA(path: Path) {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(path.hash(message).hex == expected)
        var hasher = path == .portable ? SHA256.portableHasher() : SHA256()
        for start in stride(from: 0, to: message.count, by: 1000) {
            hasher.update(Array(message[start..<(start + 1000)]))
        }
        #expect(hasher.finalize().hex == expected)
    }

    @Test("random messages of every length 0...300 (and 1 MB) match sha256sum", arguments: Path.allCases)
    func crossCheckWithSha256sum(path: Path) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pokesync-sha256-paths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var generator = SeededRandom(seed: 300)
        let lengths = Array(0...300) + [1_048_576 + 5]
        var ours: [String: String] = [:]
        for length in lengths {
            let bytes = randomBytes(count: length, using: &generator)
            let name = "random-\(length).bin"
            try Data(bytes).write(to: directory.appendingPathComponent(name))
            ours[name] = path.hash(bytes).hex
        }
        let listing = try await runTool("sha256sum", ours.keys.sorted(), in: directory)
        var checked = 0
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(ours[String(fields[1])] == String(fields[0]), "\(fields[1])")
            checked += 1
        }
        #expect(checked == lengths.count)
    }

    @Test("both paths agree on random messages and random update splits")
    func pathsAgree() {
        var generator = SeededRandom(seed: 2026)
        for _ in 0..<40 {
            let message = randomBytes(count: Int.random(in: 0...5000, using: &generator), using: &generator)
            var automatic = SHA256()
            var portable = SHA256.portableHasher()
            var start = 0
            while start < message.count {
                let end = min(message.count, start + Int.random(in: 0...400, using: &generator))
                automatic.update(Array(message[start..<end]))
                portable.update(Array(message[start..<end]))
                start = end
            }
            #expect(automatic.finalize() == portable.finalize())
        }
    }

    #if os(Linux) && (arch(x86_64) || arch(i386))
    @Test("a CPU listing sha_ni in /proc/cpuinfo gets the SHA-extension path")
    func detection() throws {
        let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
        let words = Set(flags.split(separator: " ").map(String.init))
        if words.contains("sha_ni") && words.contains("sse4_1") && words.contains("ssse3") {
            #expect(SHA256.usesSHAExtensions)
        }
    }
    #endif
}
