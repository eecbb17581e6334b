import Foundation

/// The mirror's trees of linked files: the files mirrored documents link, kept at their
/// upstream paths below `sprites/` (PokeAPI/sprites) or `cries/` (PokeAPI/cries).
///
/// Both trees go through one pipeline (policy, fetch, objects, versions, tree, diff,
/// verify, prune); what differs is named here: the frontier's job name, the table of a
/// version's files, the folder, and the upstream repository's layout.
package enum LinkedTree: String, Sendable, CaseIterable {
    case sprites, cries

    /// The frontier's job name for a file of this tree.
    package var job: String { self == .sprites ? "sprite" : "cry" }
    /// Every tree's job name as an SQL list, `('sprite', 'cry')`: the frontier's linked files.
    static let jobsSQL = "(" + allCases.map { "'\($0.job)'" }.joined(separator: ", ") + ")"
    /// The tree whose frontier job name is `job`.
    init?(job: String) {
        guard let tree = Self.allCases.first(where: { $0.job == job }) else { return nil }
        self = tree
    }
    /// The table listing each version's files of this tree.
    var versionTable: String { self == .sprites ? "version_sprites" : "version_cries" }
    /// The folder below the mirror root, also the path prefix `serve` answers.
    package var folderName: String { rawValue }
    package func folder(_ layout: MirrorLayout) -> URL { layout.root.appendingPathComponent(folderName) }
    /// One file, for messages: "sprite", "cry".
    package var noun: String { job }

    /// Links in documents start with this; the path below it (in `repositoryLayout`) is the
    /// file's place in the tree.
    package var upstreamPrefix: String {
        self == .sprites ? "https://raw.githubusercontent.com/PokeAPI/sprites/master/"
                         : "https://raw.githubusercontent.com/PokeAPI/cries/main/"
    }
    /// The decoded path on raw.githubusercontent.com where the tree starts.
    package var repositoryLayout: String {
        self == .sprites ? "/PokeAPI/sprites/master/sprites/" : "/PokeAPI/cries/main/cries/"
    }
    /// The file extensions the tree takes.
    package var extensions: Set<String> { self == .sprites ? ["png", "gif", "svg"] : ["ogg"] }
    var extensionsDescription: String { self == .sprites ? "a .png, .gif or .svg image" : "an .ogg sound" }

    /// Meta keys: the version the tree holds, and the one it is being moved to.
    var recordedKey: String { self == .sprites ? "sprite_tree_version" : "cry_tree_version" }
    var targetKey: String { self == .sprites ? "sprite_tree_target" : "cry_tree_target" }
}

/// Which cries of each pokemon to mirror (`--cries`): keys under a pokemon's `cries`.
package enum CrySet: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case none, latest, legacy, all

    /// - Throws: `RequestError.invalidCrySet` for any other word.
    package init(parsing text: String) throws {
        guard let set = CrySet(rawValue: text) else { throw RequestError.invalidCrySet(text) }
        self = set
    }

    package var description: String { rawValue }

    /// Whether the cry at `key` (`latest`, `legacy`) is selected.
    package func selects(_ key: String) -> Bool {
        switch self {
        case .none: return false
        case .latest, .legacy: return key == rawValue
        case .all: return true
        }
    }
}
