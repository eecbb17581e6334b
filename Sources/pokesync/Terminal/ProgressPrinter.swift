import Foundation
import PokeHTTP
import PokeSyncCore

/// Shows a crawl's progress: on a terminal one live line redrawn a few times a
/// second; otherwise (cron, pipes) one plain log line every few seconds.
final class ProgressPrinter: ProgressDisplay {
    private let progress: CrawlProgress
    private let isTerminal: Bool
    private let task: Task<Void, Never>

    init(progress: CrawlProgress, isTerminal: Bool = isatty(STDERR_FILENO) == 1, logInterval: Double = 5) {
        self.progress = progress
        self.isTerminal = isTerminal
        let interval = isTerminal ? 0.25 : logInterval
        task = Task { [isTerminal] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
                if Task.isCancelled { break }
                let line = Self.render(progress.snapshot())
                if isTerminal {
                    // A line wider than the terminal wraps, and "\r" then redraws only its tail.
                    standardError("\r\u{1B}[K" + String(line.prefix(Self.terminalWidth() - 1)))
                } else {
                    standardError("[\(Self.clock())] " + line + "\n")
                }
            }
        }
    }

    /// Clears the live line so that a log line can be printed in its place.
    func clearLine() {
        if isTerminal { standardError("\r\u{1B}[K") }
    }

    /// Stops redrawing and clears the live line.
    func stop() {
        task.cancel()
        if isTerminal { standardError("\r\u{1B}[K") }
    }

    /// "documents 1234/2952 · 480/s · ETA 4s · pokemon 523/1351 · ...": totals, rate and
    /// ETA first, so that a narrow terminal cuts only the per-kind detail.
    static func render(_ snapshot: CrawlProgress.Snapshot) -> String {
        var detail: [String] = []
        let unit: String
        switch snapshot.phase {
        case .starting: return "starting"
        case .listing: return "listing the kinds"
        case .publishing: return "publishing"
        case .documents:
            unit = "documents"
            if snapshot.documentsFailed > 0 { detail.append("\(snapshot.documentsFailed) failed") }
            for kind in snapshot.documentsTotal.keys.sorted() {
                detail.append("\(kind.apiName) \(snapshot.documentsSettled[kind] ?? 0)/\(snapshot.documentsTotal[kind] ?? 0)")
            }
        case .sprites:
            unit = "sprites"
            if snapshot.spritesSkipped > 0 { detail.append("\(snapshot.spritesSkipped) skipped") }
            if snapshot.spritesFailed > 0 { detail.append("\(snapshot.spritesFailed) failed") }
        }
        let elapsed = max(0.001, Date().timeIntervalSince(snapshot.phaseStarted))
        let rate = Double(snapshot.phaseSettled - snapshot.settledAtPhaseStart) / elapsed
        var parts = ["\(unit) \(snapshot.phaseSettled)/\(snapshot.phaseTotal)", String(format: "%.0f/s", rate)]
        let remaining = snapshot.phaseTotal - snapshot.phaseSettled
        if rate > 0, remaining > 0 { parts.append("ETA " + duration(Double(remaining) / rate)) }
        return (parts + detail).joined(separator: " · ")
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
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

/// Writes to standard error without buffering (progress and logs); a standard error that
/// was closed or whose reader left loses the text, and never traps.
func standardError(_ text: String) {
    StandardStreams.write(text)
}
