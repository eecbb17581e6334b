/// A run whose command line selects less than the mirror's latest version holds (fewer
/// kinds, sprites or cries): its version would drop the rest, `mirror.json` would record
/// the narrower choice, and every night after would repeat it. So it publishes only with
/// `--allow-shrink`; without, the run is refused before anything is fetched.
package struct MirrorNarrowing: Sendable, Equatable {
    /// One line per narrowed choice: `kinds all -> pokemon (47 kinds fewer: ability, berry, ...)`.
    package var changes: [String]

    /// What the command line's choices take away from the latest version's, or nil when
    /// they take nothing away (a widening, or choices from `mirror.json` or the latest
    /// version, which were chosen before).
    /// - Parameters:
    ///   - latestKinds: the kinds the latest version was resolved to (`all`: what the
    ///     source's root listed then).
    package static func of(settings: RunSettings, choices: MirrorChoices, latest: MirrorChoices?,
                           latestKinds: [ResourceKind]) -> MirrorNarrowing? {
        guard let latest else { return nil }
        let given = settings.givenOnCommandLine
        var changes: [String] = []
        if given["kinds"] != nil, let kept = choices.kinds.knownKinds {
            let lost = Set(latestKinds).subtracting(kept).sorted()
            if !lost.isEmpty {
                let names = lost.prefix(3).map(\.apiName).joined(separator: ", ") + (lost.count > 3 ? ", ..." : "")
                changes.append("kinds \(latest.kinds) -> \(choices.kinds) (\(lost.count) kind(s) fewer: \(names))")
            }
        }
        if given["sprites"] != nil, !choices.sprites.covers(latest.sprites) {
            changes.append("sprites \(latest.sprites) -> \(choices.sprites)")
        }
        if given["cries"] != nil, !choices.cries.covers(latest.cries) {
            changes.append("cries \(latest.cries) -> \(choices.cries)")
        }
        return changes.isEmpty ? nil : MirrorNarrowing(changes: changes)
    }

    /// What the mirror holds from this run on: `kinds pokemon, sprites default, cries none`.
    package static func holdings(_ choices: MirrorChoices) -> String {
        "kinds \(choices.kinds), sprites \(choices.sprites), cries \(choices.cries)"
    }
}

extension KindSelection {
    /// The kinds this selection names without reading a source's root; nil for `all`,
    /// which takes whatever the root lists.
    package var knownKinds: [ResourceKind]? {
        switch self {
        case .default: return ResourceKind.defaultKinds
        case .all: return nil
        case .list(let kinds): return kinds
        }
    }
}
