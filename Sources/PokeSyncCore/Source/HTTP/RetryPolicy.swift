import Foundation

/// How often and how patiently ``HTTPClient/fetch(_:headers:validate:)`` retries.
///
/// Delays grow exponentially with full jitter (a random wait between zero and
/// `baseDelay * 2^(attempt-1)`, capped at `maxDelay`), so that many parallel
/// requests failing together do not come back together. A server's `Retry-After`
/// is a floor: it is honoured even above `maxDelay`, up to `maxRetryAfter`.
package struct RetryPolicy: Sendable, Equatable {
    /// Attempts in total, the first one included (1 means never retry).
    package var maxAttempts: Int
    /// The upper bound of the first retry's delay.
    package var baseDelay: Duration
    /// The largest backoff delay, before any `Retry-After` floor.
    package var maxDelay: Duration
    /// The longest `Retry-After` that is honoured; longer requests wait this long.
    package var maxRetryAfter: Duration

    /// Attempts in total when neither a caller nor mirror.json's `retry.attempts` says.
    package static let defaultAttempts = 5
    /// The first retry's delay bound when mirror.json's `retry.base_delay_ms` does not say.
    package static let defaultBaseDelay: Duration = .milliseconds(500)
    /// The backoff's cap.
    package static let defaultMaxDelay: Duration = .seconds(30)

    /// - Parameters:
    ///   - maxAttempts: attempts in total, at least 1.
    ///   - baseDelay: upper bound of the first retry's delay; tests use ~10 ms.
    ///   - maxDelay: cap of the exponential backoff.
    ///   - maxRetryAfter: cap of a server's `Retry-After`.
    package init(maxAttempts: Int = RetryPolicy.defaultAttempts, baseDelay: Duration = RetryPolicy.defaultBaseDelay,
                maxDelay: Duration = RetryPolicy.defaultMaxDelay, maxRetryAfter: Duration = .seconds(120)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// The wait before the next attempt.
    /// - Parameters:
    ///   - attempt: the number of the attempt that just failed, from 1.
    ///   - retryAfter: the server's `Retry-After`, if it sent one (see ``retryAfter(from:now:)``).
    package func delay(forAttempt attempt: Int, retryAfter: Duration?) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(forAttempt: attempt, retryAfter: retryAfter, using: &generator)
    }

    /// ``delay(forAttempt:retryAfter:)`` with a chosen random source.
    package func delay<G: RandomNumberGenerator>(forAttempt attempt: Int, retryAfter: Duration?,
                                                using generator: inout G) -> Duration {
        let base = seconds(baseDelay), cap = seconds(maxDelay)
        // 2^30 is far past any cap; clamping the exponent keeps the arithmetic finite.
        let exponent = Double(min(max(attempt, 1) - 1, 30))
        let ceiling = min(cap, base * pow(2, exponent))
        let jittered = ceiling > 0 ? Double.random(in: 0...ceiling, using: &generator) : 0
        var wait = jittered
        if let retryAfter {
            wait = max(wait, min(seconds(retryAfter), seconds(maxRetryAfter)))
        }
        return .nanoseconds(Int64((wait * 1e9).rounded()))
    }

    /// Parses a `Retry-After` header: delay-seconds (`"120"`) or an HTTP date
    /// (`"Wed, 21 Oct 2015 07:28:00 GMT"`). A date in the past gives zero.
    /// Returns nil for anything else.
    package static func retryAfter(from header: String, now: Date = Date()) -> Duration? {
        let text = header.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) {
            return seconds >= 0 ? .seconds(seconds) : nil
        }
        for format in httpDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) {
                let interval = max(0, date.timeIntervalSince(now))
                return .milliseconds(Int64((interval * 1000).rounded()))
            }
        }
        return nil
    }

    // IMF-fixdate first, then the two obsolete forms RFC 9110 still asks recipients to accept.
    private static let httpDateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ]

    private func seconds(_ duration: Duration) -> Double {
        let (whole, fraction) = duration.components
        return Double(whole) + Double(fraction) / 1e18
    }
}
