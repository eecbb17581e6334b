/// A step after a publish that failed: the step, and why.
struct FollowUpFailure: PokeSyncError {
    var step: String
    var underlying: any Error

    // Not ErrorCode(of:): a follow-up cut short by a cancellation failed to write (74), the
    // version stays published.
    var code: ErrorCode { (underlying as? any PokeSyncError)?.code ?? .unclassified }
    var description: String {
        "\(step) for the last published version failed: \((underlying as? any PokeSyncError)?.description ?? "\(underlying)")"
    }
}

/// The version is published (a reader sees it), but a step after it failed; the next
/// run finishes that step before anything else, without fetching the version again.
package struct PublishedFollowUpError: PokeSyncError {
    package var version: Int
    var failure: FollowUpFailure

    package var code: ErrorCode { failure.code }
    package var description: String {
        let reason = (failure.underlying as? any PokeSyncError)?.description ?? "\(failure.underlying)"
        return "published version \(version); \(failure.step) failed: \(reason) (the next full or sync finishes it first)"
    }
}
