/// Which sprite URLs of each document to mirror (`--sprites`).
public enum SpriteSet: Sendable, Equatable, CustomStringConvertible {
    case none
    /// `front_default` of every pokemon.
    case defaults
    /// Everything under `other/official-artwork`.
    case artwork
    /// Every sprite URL in every document.
    case all
    /// A list of JSON paths under `sprites`, e.g. `front_default,other/home/front_default`.
    case paths([String])

    /// - Throws: `UsageError` when a path is not of the form `a/b_c/d-e`.
    public init(parsing text: String) throws {
        switch text {
        case "none": self = .none
        case "default": self = .defaults
        case "artwork": self = .artwork
        case "all": self = .all
        default:
            let paths = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-/")
            guard !paths.isEmpty, paths.allSatisfy({ path in
                !path.isEmpty && path.allSatisfy(allowed.contains) && !path.split(separator: "/", omittingEmptySubsequences: false).contains("")
            }) else {
                throw UsageError("--sprites takes none, default, artwork, all, or a comma list of paths under `sprites` (got \"\(text)\")")
            }
            self = .paths(paths)
        }
    }

    public var description: String {
        switch self {
        case .none: return "none"
        case .defaults: return "default"
        case .artwork: return "artwork"
        case .all: return "all"
        case .paths(let paths): return paths.joined(separator: ",")
        }
    }

    /// Whether the sprite at `key` (its path under `sprites`) is selected.
    public func selects(_ key: String) -> Bool {
        switch self {
        case .none: return false
        case .defaults: return key == "front_default"
        case .artwork: return key.hasPrefix("other/official-artwork/")
        case .all: return true
        case .paths(let paths): return paths.contains(key)
        }
    }
}

/// The command line was wrong: exit 64.
public struct UsageError: PokeSyncFailure {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var exitStatus: ExitStatus { .usage }
    public var description: String { message }
}

import Foundation
