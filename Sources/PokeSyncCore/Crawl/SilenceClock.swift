/// How long a peer has been silent while asked: the clock both watches run, ``HostWatch``
/// for the file hosts and ``SourceWatch`` for the document source.
///
/// It measures how long requests stay outstanding without an answer that counts, not how
/// long ago the peer last answered: a quiet spell (nothing in flight) starts the clock anew
/// at the next request, so a peer asked again after the run's other work is not silent.
/// What counts as an answer is the watch's to say.
struct SilenceClock {
    /// The last answer that counted, or the moment requests began after a quiet spell.
    private(set) var anchor: ContinuousClock.Instant
    private(set) var inFlight = 0

    init(now: ContinuousClock.Instant = .now) {
        anchor = now
    }

    /// A request starts.
    mutating func begin(at now: ContinuousClock.Instant) {
        if inFlight == 0 { anchor = now }
        inFlight += 1
    }

    /// A request ended; `heard` when its answer restarts the clock.
    mutating func end(at now: ContinuousClock.Instant, heard: Bool) {
        inFlight = max(0, inFlight - 1)
        if heard { anchor = now }
    }

    /// Whether requests are outstanding and nothing that counts came for longer than `budget`.
    func isSilent(at now: ContinuousClock.Instant, budget: Duration) -> Bool {
        inFlight > 0 && now - anchor > budget
    }

    /// "2 minutes", "90 s", "8 s": a budget as the run's lines say it.
    static func spell(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds >= 60, seconds % 60 == 0 { return seconds == 60 ? "1 minute" : "\(seconds / 60) minutes" }
        return "\(seconds) s"
    }
}
