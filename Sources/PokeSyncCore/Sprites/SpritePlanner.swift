/// Turns the sprite URLs a document names into sprite jobs (for the selected set)
/// and refusal reports (for URLs the policy will not fetch).
package struct SpritePlanner: Sendable {
    package let set: SpriteSet
    package let policy: SpritePolicy

    package init(set: SpriteSet, policy: SpritePolicy) {
        self.set = set
        self.policy = policy
    }

    var spriteSourceDescription: String? { policy.source?.description }

    func plan(_ references: [SpriteReference], document: String) -> (jobs: [SpriteJob], reports: [SpriteReport]) {
        var jobs: [SpriteJob] = []
        var reports: [SpriteReport] = []
        var seen = Set<String>()
        for reference in references where set.selects(reference.key) && seen.insert(reference.url).inserted {
            switch policy.resolve(reference.url) {
            case .success(let resolved):
                jobs.append(SpriteJob(url: reference.url, path: resolved.path, document: document))
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
        default:
            return .wrongType("not a .png, .gif or .svg image")
        }
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
