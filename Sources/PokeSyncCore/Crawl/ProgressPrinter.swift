import Foundation

/// Shows a crawl's progress: on a terminal one live line redrawn a few times a
/// second; otherwise (cron, pipes) one plain log line every few seconds.
public final class ProgressPrinter: Sendable {
    private let progress: CrawlProgress
    private let isTerminal: Bool
    private let task: Task<Void, Never>

    public init(progress: CrawlProgress, isTerminal: Bool = isatty(STDERR_FILENO) == 1, logInterval: Double = 5) {
        self.progress = progress
        self.isTerminal = isTerminal
        let interval = isTerminal ? 0.25 : logInterval
        task = Task { [isTerminal] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
                if Task.isCancelled { break }
                let line = Self.render(progress.snapshot())
                if isTerminal {
                    standardError("\r\u{1B}[K" + line)
                } else {
                    standardError("[\(Self.clock())] " + line + "\n")
                }
            }
        }
    }

    /// Clears the live line so that a log line can be printed in its place.
    public func clearLine() {
        if isTerminal { standardError("\r\u{1B}[K") }
    }

    /// Stops redrawing and clears the live line.
    public func stop() {
        task.cancel()
        if isTerminal { standardError("\r\u{1B}[K") }
    }

    static func render(_ snapshot: CrawlProgress.Snapshot) -> String {
        var parts: [String] = []
        switch snapshot.phase {
        case .starting: return "starting"
        case .listing: return "listing pokemon, pokemon-species, pokedex, evolution-chain"
        case .publishing: return "publishing"
        case .documents:
            for kind in ResourceKind.allCases {
                parts.append("\(kind.apiName) \(snapshot.documentsSettled[kind] ?? 0)/\(snapshot.documentsTotal[kind] ?? 0)")
            }
            if snapshot.documentsFailed > 0 { parts.append("\(snapshot.documentsFailed) failed") }
        case .sprites:
            parts.append("sprites \(snapshot.spritesSettled)/\(snapshot.spritesTotal)")
            if snapshot.spritesSkipped > 0 { parts.append("\(snapshot.spritesSkipped) skipped") }
            if snapshot.spritesFailed > 0 { parts.append("\(snapshot.spritesFailed) failed") }
        }
        let elapsed = max(0.001, Date().timeIntervalSince(snapshot.phaseStarted))
        let done = snapshot.phaseSettled - snapshot.settledAtPhaseStart
        let rate = Double(done) / elapsed
        parts.append(String(format: "%.0f/s", rate))
        let remaining = snapshot.phaseTotal - snapshot.phaseSettled
        if rate > 0, remaining > 0 { parts.append("ETA " + duration(Double(remaining) / rate)) }
        return parts.joined(separator: " · ")
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole >= 60 ? String(format: "%d:%02d", whole / 60, whole % 60) : "\(whole)s"
    }

    static func clock() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: Date())
    }
}

/// Writes to standard error without buffering (progress and logs).
public func standardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
