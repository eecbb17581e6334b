import Foundation

/// Why a command could not use the mirror folder as asked, or what failed after a publish.
package enum MirrorError: PokeSyncError {
    /// Another pokesync (`holderPID`, when it wrote it) holds the lock on `mirror`.
    case locked(mirror: String, holderPID: Int32?)
    /// Root asked to write a mirror another user owns; the message says the line to run instead.
    case foreignOwner(ForeignOwner)
    /// A run refused because its command line narrows the mirror without `--allow-shrink`: a
    /// usage choice, said before anything is fetched. `configFile`: the mirror's `mirror.json`,
    /// as a path the operator can open.
    case narrowingRefused(MirrorNarrowing, configFile: String)
    /// A backup's destination inside the mirror it copies.
    case backupInsideMirror(String, mirror: String)
    /// A step after a publish that failed: the step, and why (caught and said as
    /// ``publishedFollowUp(version:step:underlying:)`` by the run that published).
    case followUpFailed(step: String, underlying: any Error)
    /// The version is published (a reader sees it), but a step after it failed; the next
    /// run finishes that step before anything else, without fetching the version again.
    case publishedFollowUp(version: Int, step: String, underlying: any Error)

    package var code: ErrorCode {
        switch self {
        case .locked: .mirrorLocked
        case .foreignOwner: .foreignOwner
        case .narrowingRefused: .narrowingRefused
        case .backupInsideMirror: .backupInsideMirror
        // Not ErrorCode(of:): a follow-up cut short by a cancellation failed to write (74),
        // the version stays published.
        case .followUpFailed(_, let underlying), .publishedFollowUp(_, _, let underlying):
            (underlying as? any PokeSyncError)?.code ?? .unclassified
        }
    }

    package var description: String {
        switch self {
        case .locked(let mirror, let holderPID):
            let holder = holderPID.map { "pid \($0)" } ?? "another process"
            return "another pokesync (\(holder)) holds the lock on \(mirror); try again when it has finished"
        case .foreignOwner(let owner):
            return owner.description(rerun: nil)
        case .narrowingRefused(let narrowing, let configFile):
            return "this would narrow the mirror (\(narrowing.changes.joined(separator: "; "))): its next version, \(configFile) "
                + "and every night after would hold only that; add --allow-shrink to mean it, or leave the option out "
                + "(nothing was fetched)"
        case .backupInsideMirror(let path, let mirror):
            return "backup \(path) is inside the mirror \(mirror); give a path outside it"
        case .followUpFailed(let step, let underlying):
            return "\(step) for the last published version failed: \(Self.reason(underlying))"
        case .publishedFollowUp(let version, let step, let underlying):
            return "published version \(version); \(step) failed: \(Self.reason(underlying)) (the next full or sync finishes it first)"
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as? any PokeSyncError)?.description ?? "\(error)"
    }
}
