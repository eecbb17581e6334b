/// Turns the links a document names into jobs for the linked files the run selects,
/// and refusal reports (for URLs the policy will not fetch).
///
/// `--sprites default`, `artwork` and path lists select among a pokemon's sprites;
/// `all` is every sprite any document links (pokemon-form, item and type too).
/// `--cries` selects among a pokemon's `cries` (`latest`, `legacy`).
package struct SpritePlanner: Sendable {
    package let set: SpriteSet
    package let policy: SpritePolicy
    package let cries: CrySet
    package let cryPolicy: SpritePolicy

    package init(set: SpriteSet, policy: SpritePolicy, cries: CrySet = .none, cryPolicy: SpritePolicy? = nil) {
        self.set = set
        self.policy = policy
        self.cries = cries
        var cryPolicy = cryPolicy ?? policy
        cryPolicy.tree = .cries
        self.cryPolicy = cryPolicy
    }

    var spriteSourceDescription: String? { policy.source?.description }
    var crySourceDescription: String? { cries == .none ? nil : cryPolicy.source?.description }

    /// Whether a document of `kind` may link files of `tree` that this run selects.
    func wants(_ tree: LinkedTree, of kind: ResourceKind) -> Bool {
        switch tree {
        case .sprites: return kind == .pokemon ? set != .none : set == .all
        case .cries: return cries != .none
        }
    }

    func selects(_ key: String, tree: LinkedTree, kind: ResourceKind) -> Bool {
        switch tree {
        case .sprites: return kind == .pokemon ? set.selects(key) : set == .all
        case .cries: return cries.selects(key)
        }
    }

    func plan(_ references: [SpriteReference], tree: LinkedTree = .sprites, kind: ResourceKind = .pokemon,
              document: String) -> (jobs: [SpriteJob], reports: [SpriteReport]) {
        var jobs: [SpriteJob] = []
        var reports: [SpriteReport] = []
        var seen = Set<String>()
        let policy = tree == .cries ? cryPolicy : self.policy
        for reference in references where selects(reference.key, tree: tree, kind: kind) && seen.insert(reference.url).inserted {
            switch policy.resolve(reference.url) {
            case .success(let resolved):
                jobs.append(SpriteJob(url: reference.url, path: resolved.path, document: document, tree: tree))
            case .failure(let refusal):
                reports.append(SpriteReport(url: reference.url, document: document, outcome: .refused, reason: refusal.reason))
            }
        }
        return (jobs, reports)
    }
}

/// Checks that a body is a whole image of the type its path says.
enum ImageCheck {
    enum Problem: Equatable {
        /// Not that type at all: refused.
        case wrongType(String)
        /// The right type, cut short: worth another try.
        case incomplete
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let pngEnd: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]

    static func problem(_ body: [UInt8], fileExtension: String) -> Problem? {
        switch fileExtension.lowercased() {
        // The end markers are looked for near the end, not at the very end: files with a
        // few stray bytes after them exist upstream and are whole all the same.
        case "png":
            guard body.starts(with: pngSignature) else { return .wrongType("not a PNG (bad signature)") }
            return contains(body.suffix(1024), pngEnd) ? nil : .incomplete
        case "gif":
            guard body.starts(with: Array("GIF87a".utf8)) || body.starts(with: Array("GIF89a".utf8)) else {
                return .wrongType("not a GIF (bad signature)")
            }
            return body.count > 13 && body.suffix(64).contains(0x3B) ? nil : .incomplete
        case "svg":
            let text = String(decoding: body.prefix(4096), as: UTF8.self)
                .trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{FEFF}")))
            guard text.hasPrefix("<?xml") || text.hasPrefix("<svg") || text.hasPrefix("<!--") || text.hasPrefix("<!DOCTYPE svg"),
                  String(decoding: body.prefix(65_536), as: UTF8.self).contains("<svg") else {
                return .wrongType("not an SVG document")
            }
            return String(decoding: body.suffix(1024), as: UTF8.self).contains("</svg>") ? nil : .incomplete
        case "ogg":
            // An Ogg stream is a chain of pages (RFC 3533); it is whole when its pages run
            // to the very end of the body, each with its checksum right, and the last says
            // "end of stream" (header type flag 0x04). Unlike images, nothing may follow.
            guard body.starts(with: oggCapture) else { return .wrongType("not an Ogg stream (no OggS capture pattern)") }
            return oggProblem(body)
        default:
            return .wrongType("not a .png, .gif or .svg image")
        }
    }

    static let oggCapture: [UInt8] = Array("OggS".utf8)

    /// What a file of that extension is, for messages.
    static func noun(_ fileExtension: String) -> String { fileExtension.lowercased() == "ogg" ? "Ogg stream" : "image" }

    /// Walks the pages of an Ogg stream from its first byte: a page cut short is
    /// `incomplete` (worth another try); a broken page, a wrong checksum or bytes after the
    /// end-of-stream page are `wrongType` (the file is not a whole stream).
    static func oggProblem(_ body: [UInt8]) -> Problem? {
        var index = 0
        var flags: UInt8 = 0
        while index < body.count {
            if flags & 0x04 != 0 {
                return .wrongType("not a whole Ogg stream (\(body.count - index) bytes after its end-of-stream page)")
            }
            guard index + 27 <= body.count else { return .incomplete }
            guard body[index] == 0x4F, body[index + 1] == 0x67, body[index + 2] == 0x67, body[index + 3] == 0x53,
                  body[index + 4] == 0 else {
                return .wrongType("not a whole Ogg stream (no page at byte \(index))")
            }
            let segments = Int(body[index + 26])
            guard index + 27 + segments <= body.count else { return .incomplete }
            var payload = 0
            for lacing in body[(index + 27)..<(index + 27 + segments)] { payload += Int(lacing) }
            let end = index + 27 + segments + payload
            guard end <= body.count else { return .incomplete }
            let stored = UInt32(body[index + 22]) | UInt32(body[index + 23]) << 8
                | UInt32(body[index + 24]) << 16 | UInt32(body[index + 25]) << 24
            guard oggChecksum(body[index..<end]) == stored else {
                return .wrongType("not a whole Ogg stream (the page at byte \(index) has a wrong checksum)")
            }
            flags = body[index + 5]
            index = end
        }
        return flags & 0x04 != 0 ? nil : .incomplete
    }

    /// The Ogg page checksum: CRC-32 with polynomial 0x04C11DB7, not reflected, initial 0,
    /// over the page with its checksum field (bytes 22-25) taken as zero.
    static func oggChecksum(_ page: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for (offset, byte) in page.enumerated() {
            let value: UInt8 = (22...25).contains(offset) ? 0 : byte
            crc = (crc << 8) ^ oggTable[Int(UInt8(truncatingIfNeeded: crc >> 24) ^ value)]
        }
        return crc
    }

    private static let oggTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        var start = haystack.startIndex
        while start + needle.count <= haystack.endIndex {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }
}

import Foundation
