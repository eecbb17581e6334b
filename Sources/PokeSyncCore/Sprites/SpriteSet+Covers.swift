/// Whether one linked-file selection holds everything another asks for: a bundle profile
/// must ask only for sprites the mirror selects, and a run that selects less than the
/// mirror's latest version narrows the mirror.
extension SpriteSet {
    /// Whether every sprite `other` selects, this set selects too. Conservative: a list
    /// of paths is never taken to cover `artwork`, whose keys are upstream's to add to.
    package func covers(_ other: SpriteSet) -> Bool {
        switch other {
        case .none: return true
        case .all: return self == .all
        case .artwork: return self == .all || self == .artwork
        case .defaults: return selects("front_default")
        case .paths(let keys): return keys.allSatisfy(selects)
        }
    }

    /// The set a bundle profile takes on a mirror of this set: `wanted` when this set
    /// covers it, else `default` when this set selects `front_default`, else this set
    /// itself (`none` for a mirror without sprites), so that the nightly export never asks
    /// for sprites the mirror was never told to keep.
    package func bundleSet(wanted: String) -> String {
        if let set = try? SpriteSet(parsing: wanted), covers(set) { return wanted }
        if covers(.defaults) { return SpriteSet.defaults.description }
        return description
    }
}

extension CrySet {
    /// Whether every cry `other` selects, this set selects too.
    package func covers(_ other: CrySet) -> Bool { other == .none || self == .all || self == other }
}
