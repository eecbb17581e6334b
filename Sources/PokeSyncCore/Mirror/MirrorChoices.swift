import Foundation

/// What makes a mirror what it is: where its documents and linked files come from, and
/// which of them it keeps.
///
/// A run takes each choice from the command line, else from `mirror.json`, else from the
/// latest version (what the mirror was last made with), else the default. So a bare
/// `sync` repeats the mirror's own choices, and only a choice given on purpose changes one.
package struct MirrorChoices: Sendable, Equatable {
    /// `--source`: an API base URL or an api-data folder.
    package var source: String
    /// `--sprite-source`; nil: upstream (raw.githubusercontent.com/PokeAPI/sprites).
    package var spriteSource: String?
    package var sprites: SpriteSet
    package var kinds: KindSelection
    package var cries: CrySet
    /// `--cry-source`; nil: upstream (raw.githubusercontent.com/PokeAPI/cries).
    package var crySource: String?

    /// A new mirror's source.
    package static let defaultSource = "https://pokeapi.co" + APIShape.basePath

    /// A new mirror's choices.
    package static let defaults = MirrorChoices(source: defaultSource, spriteSource: nil, sprites: .defaults,
                                                 kinds: .default, cries: .none, crySource: nil)

    package init(source: String, spriteSource: String?, sprites: SpriteSet, kinds: KindSelection,
                 cries: CrySet, crySource: String?) {
        self.source = source
        self.spriteSource = spriteSource
        self.sprites = sprites
        self.kinds = kinds
        self.cries = cries
        self.crySource = crySource
    }

    /// What the latest version was made with; nil for a mirror with no version yet.
    /// A version made before kinds or cries were recorded has `default` and `none`.
    /// - Throws: store errors.
    package static func recorded(in store: Store) throws -> MirrorChoices? {
        guard let latest = try store.latestVersion() else { return nil }
        let crySet = try store.versionCrySet(latest.number)
        // A recorded sprite set is one this build wrote; an unreadable one (a store
        // edited by hand) falls back to the default rather than stopping every run.
        return MirrorChoices(source: latest.source, spriteSource: latest.spriteSource,
                             sprites: (try? SpriteSet(parsing: latest.spriteSet)) ?? .defaults,
                             kinds: try store.versionKinds(latest.number)?.selection ?? .default,
                             cries: crySet?.selection ?? .none, crySource: crySet?.source)
    }

    /// Whether a run with these choices fetches from pokeapi.co or the file hosts its
    /// documents link (raw.githubusercontent.com), whose operators ask for a gentle rate.
    package var reachesPokeAPI: Bool {
        if let url = URL(string: source), let host = url.host?.lowercased(),
           host == "pokeapi.co" || host.hasSuffix(".pokeapi.co") {
            return true
        }
        return (sprites != .none && spriteSource == nil) || (cries != .none && crySource == nil)
    }

    /// As a run records them: a folder as its absolute path, an API base without its
    /// last slashes; for telling whether two sets of choices make the same mirror.
    package var normalized: MirrorChoices {
        func folderOrURL(_ text: String) -> String {
            text.contains("://") ? text : URL(fileURLWithPath: text).standardizedFileURL.path
        }
        var copy = self
        copy.source = folderOrURL(source)
        if copy.source.contains("://") { while copy.source.hasSuffix("/") { copy.source.removeLast() } }
        copy.spriteSource = spriteSource.map(folderOrURL)
        copy.crySource = cries == .none ? nil : crySource.map(folderOrURL)
        return copy
    }

    /// `--sprite-source` or `--cry-source` as given: upstream's own address (with or
    /// without its last slash) is upstream, recorded as no source at all, so that a
    /// `mirror.json` can name it and still match runs and versions made without one.
    package static func linkedSource(_ given: String, tree: LinkedTree) -> String? {
        let upstream = tree.upstreamPrefix
        return given == upstream || given + "/" == upstream ? nil : given
    }
}
