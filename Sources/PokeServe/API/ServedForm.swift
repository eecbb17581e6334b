import PokeSyncCore

/// How a stored document becomes the served one: its canonical bytes with every string
/// value that starts with `/api/v2/` prefixed by the base URL, and with `--sprite-base`,
/// upstream's sprite and cry prefixes replaced by this server's `/sprites/` and `/cries/`
/// for the files the served version holds (any other keeps upstream's URL). Keys are
/// never rewritten, nor a URL in the middle of a string.
struct ServedForm: Sendable {
    /// The sprite and cry URL prefixes documents carry (<doc:PokeSyncCore/Sources#Linked-files>).
    static let upstreamSprites = Array((LinkedTree.sprites.upstreamPrefix + "sprites/").utf8)
    static let upstreamCries = Array((LinkedTree.cries.upstreamPrefix + "cries/").utf8)
    static let apiPath = APIShape.rootPathBytes

    /// `http://host:port` or `https://host/prefix`: no trailing slash.
    let base: String
    /// `URL/sprites/`, when linked files are served.
    let spritePrefix: String?

    private let baseBytes: [UInt8]
    private let spriteBytes: [UInt8]?
    private let cryBytes: [UInt8]?

    init(base: String, spriteBase: String?) {
        self.base = base
        self.spritePrefix = spriteBase.map { $0 + "/sprites/" }
        baseBytes = Array(base.utf8)
        spriteBytes = spritePrefix.map { Array($0.utf8) }
        cryBytes = spriteBase.map { Array(($0 + "/cries/").utf8) }
    }

    /// Whether links are rewritten at all (`--sprite-base`): then a body depends on the
    /// files its version holds.
    var rewritesLinks: Bool { spriteBytes != nil }

    /// The absolute URL of an API path (`/api/v2/pokemon/25/`).
    func url(_ path: String) -> String { base + path }

    /// The served bytes of canonical JSON `canonical`, whose version holds `held`.
    func render(_ canonical: [UInt8], held: HeldLinks = .none) -> [UInt8] {
        canonical.withUnsafeBufferPointer { input in
            let count = input.count
            var output: [UInt8] = []
            output.reserveCapacity(count + count / 4)
            var copied = 0
            var index = 0
            while index < count {
                guard input[index] == 0x22 else { index += 1; continue }
                let start = index + 1
                var end = start
                while end < count && input[end] != 0x22 { end += input[end] == 0x5C ? 2 : 1 }
                // A body cut after a backslash (never a stored one: each is checked against
                // its hash) must not make the prefix checks read past it.
                end = min(end, count)
                let isKey = end + 1 < count && input[end + 1] == 0x3A
                if !isKey {
                    if Self.starts(input, at: start, end: end, with: Self.apiPath) {
                        output.append(contentsOf: input[copied ..< start])
                        output.append(contentsOf: baseBytes)
                        copied = start
                    } else if let spriteBytes, Self.starts(input, at: start, end: end, with: Self.upstreamSprites),
                              held.sprites.contains(Self.text(input, start + Self.upstreamSprites.count, end)) {
                        output.append(contentsOf: input[copied ..< start])
                        output.append(contentsOf: spriteBytes)
                        copied = start + Self.upstreamSprites.count
                    } else if let cryBytes, Self.starts(input, at: start, end: end, with: Self.upstreamCries),
                              held.cries.contains(Self.text(input, start + Self.upstreamCries.count, end)) {
                        output.append(contentsOf: input[copied ..< start])
                        output.append(contentsOf: cryBytes)
                        copied = start + Self.upstreamCries.count
                    }
                }
                index = end + 1
            }
            if copied < count { output.append(contentsOf: input[copied ..< count]) }
            return output
        }
    }

    /// The string contents from `start` to `end` as written (a path with an escape in it
    /// matches no held file, and keeps upstream's URL).
    private static func text(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: input[start ..< max(start, end)]), as: UTF8.self)
    }

    private static func starts(_ input: UnsafeBufferPointer<UInt8>, at start: Int, end: Int, with prefix: [UInt8]) -> Bool {
        guard end - start >= prefix.count else { return false }
        for offset in 0 ..< prefix.count where input[start + offset] != prefix[offset] { return false }
        return true
    }
}

/// `text` as a JSON string, quotes included (names in lists, links), escaped as the
/// stored documents are (`CanonicalJSON`: Python's escapes, raw UTF-8).
func jsonString(_ text: String) -> String {
    "\"" + String(decoding: CanonicalJSON.canonicalStringContents(text), as: UTF8.self) + "\""
}
