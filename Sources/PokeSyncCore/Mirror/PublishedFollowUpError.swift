/// A step after a publish that failed: the step, and why.
struct FollowUpFailure: PokeSyncFailure {
    var step: String
    var underlying: any Error

    var exitStatus: ExitStatus { (underlying as? any PokeSyncFailure)?.exitStatus ?? .ioError }
    var description: String {
        "\(step) for the last published version failed: \((underlying as? any PokeSyncFailure)?.description ?? "\(underlying)")"
    }
}

/// The version is published (a reader sees it), but a step after it failed; the next
/// run finishes that step before anything else, without fetching the version again.
package struct PublishedFollowUpError: PokeSyncFailure {
    package var version: Int
    var failure: FollowUpFailure

    package var exitStatus: ExitStatus { failure.exitStatus }
    package var description: String {
        let reason = (failure.underlying as? any PokeSyncFailure)?.description ?? "\(failure.underlying)"
        return "published version \(version); \(failure.step) failed: \(reason) (the next full or sync finishes it first)"
    }
}
