/// Which sprite URLs of each document to mirror (`--sprites`).
package enum SpriteSet: Sendable, Equatable, CustomStringConvertible {
    case none
    /// `front_default` of every pokemon.
    case defaults
    /// Everything under `other/official-artwork`.
    case artwork
    /// Every sprite URL in every document.
    case all
    /// A list of JSON paths under `sprites`, e.g. `front_default,other/home/front_default`.
    case paths([String])

    /// The sprite fields a PokeAPI `sprites` object has, at its top and at the end of
    /// every path below `other/` and `versions/` (`versions/generation-i/red-blue/front_gray`).
    package static let fieldNames: Set<String> = Set(["front", "back"].flatMap { side in
        ["default", "shiny", "female", "shiny_female", "gray", "transparent", "shiny_transparent"].map { "\(side)_\($0)" }
    })

    /// - Throws: `RequestError` naming the sets when a path is not a sprite's path under
    ///   `sprites`: a field name (`front_default`), or `other/...` or `versions/...`
    ///   ending in one; so that a typo (`defualt`) is not taken as a path that selects nothing.
    package init(parsing text: String) throws {
        switch text {
        case "none": self = .none
        case "default": self = .defaults
        case "artwork": self = .artwork
        case "all": self = .all
        default:
            let paths = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            if let wrong = paths.first(where: { !Self.isSpritePath($0) }) {
                throw RequestError.invalidSpriteSet(wrong.isEmpty ? text : wrong)
            }
            self = .paths(paths)
        }
    }

    /// `front_default`, or `other/...`/`versions/...` ending in a field name, in lower-case
    /// letters, digits, `_` and `-`.
    static func isSpritePath(_ path: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-")
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = segments.last, fieldNames.contains(String(last)),
              segments.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed.contains) }) else { return false }
        return segments.count == 1 || ["other", "versions"].contains(segments[0])
    }

    /// The same selection spelled one way, so that one selection is one bundle profile:
    /// a path listed twice counts once (the first place kept, so lists without repeats
    /// keep their spelling and their bundles), and a list that is only `front_default`
    /// is `default`, which selects exactly that.
    package var canonical: SpriteSet {
        guard case .paths(let paths) = self else { return self }
        var seen = Set<String>()
        let unique = paths.filter { seen.insert($0).inserted }
        return unique == ["front_default"] ? .defaults : .paths(unique)
    }

    package var description: String {
        switch self {
        case .none: return "none"
        case .defaults: return "default"
        case .artwork: return "artwork"
        case .all: return "all"
        case .paths(let paths): return paths.joined(separator: ",")
        }
    }

    /// Whether the sprite at `key` (its path under `sprites`) is selected.
    package func selects(_ key: String) -> Bool {
        switch self {
        case .none: return false
        case .defaults: return key == "front_default"
        case .artwork: return key.hasPrefix("other/official-artwork/")
        case .all: return true
        case .paths(let paths): return paths.contains(key)
        }
    }
}

import Foundation
